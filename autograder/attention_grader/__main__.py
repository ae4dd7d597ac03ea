"""Entry point: ``python -m attention_grader <step> ...`` (see :mod:`attention_grader.cli`)."""

import sys

from attention_grader.cli import main

if __name__ == "__main__":  # workers may be spawned: never run the CLI on import
    sys.exit(main(fresh_process=True))

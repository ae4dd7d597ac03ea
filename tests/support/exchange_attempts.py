"""A student's attempts on the exchange, run where she runs code (a hub kernel, a stand-in pod)."""

from __future__ import annotations


def attempts_code(attempts: dict[str, str]) -> str:
    """Python that runs each snippet of ``attempts`` and prints one JSON object.

    Each key maps to ``ok`` or the name of the ``OSError`` its snippet raised (any other error
    stops the run: a snippet that fails otherwise is a broken test, not a refusal).
    """
    return (
        "import json, os, shutil\n"
        f"attempts = {attempts!r}\n"
        "result = {}\n"
        "for key, snippet in attempts.items():\n"
        "    try:\n"
        "        exec(snippet)\n"
        "        result[key] = 'ok'\n"
        "    except OSError as err:\n"
        "        result[key] = type(err).__name__\n"
        "print(json.dumps(result))\n"
    )

"""The grader's names for configs: every name a config file, a hub or the docs use, kept stable.

A course's ``nbgrader_config.py``, a hub's system ``nbgrader_config.py``, the Kubernetes values
and ``nbgrader export --exporter=...`` name classes and functions here
(``c.ExchangeFactory.submit = "attention_grader.plugins.PrivateExchangeSubmit"``), never a
module inside a subpackage: modules move when the grader is laid out anew, these names do not.
Each name is imported from its module when first used, so importing this module (as traitlets
does for a class path) costs nothing but what the name needs.

Jupyter server extensions are named by module (the protocol wants a module with
``_load_jupyter_server_extension``): :data:`SERVER_EXTENSIONS` lists those the course enables;
they keep their names as these do.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from attention_grader.config.environment import apply_environment
    from attention_grader.exchange.inbound_list import SafeExchangeList
    from attention_grader.exchange.private_submit import PrivateExchangeSubmit
    from attention_grader.intake.intake_guard import intake_hook
    from attention_grader.intake.late import SharePerDay
    from attention_grader.pipeline import configure, with_solution_check
    from attention_grader.steps.lms import CanvasExportPlugin
    from attention_grader.term.validate_labels import name_questions

__all__ = [
    "SERVER_EXTENSIONS",
    "CanvasExportPlugin",
    "PrivateExchangeSubmit",
    "SafeExchangeList",
    "SharePerDay",
    "apply_environment",
    "configure",
    "intake_hook",
    "name_questions",
    "with_solution_check",
]

#: Each name -> the module that defines it (where it lives may change; the name here may not).
NAMES = {
    # nbgrader_config.py: the course's pipeline and its late penalty
    "configure": "attention_grader.pipeline",
    "with_solution_check": "attention_grader.pipeline",
    "SharePerDay": "attention_grader.intake.late",
    # nbgrader_config.py: the ATTENTION_LAB_* variables for nbgrader's own settings
    "apply_environment": "attention_grader.config.environment",
    # a teacher's own pre_convert_hook calls the intake first (pipeline.configure says so)
    "intake_hook": "attention_grader.intake.intake_guard",
    # a hub's nbgrader_config.py: the exchange's private submit and list
    "PrivateExchangeSubmit": "attention_grader.exchange.private_submit",
    "SafeExchangeList": "attention_grader.exchange.inbound_list",
    # nbgrader export --exporter=attention_grader.plugins.CanvasExportPlugin
    "CanvasExportPlugin": "attention_grader.steps.lms",
    # nbgrader validate names each failing question (a laptop's nbgrader_config.py)
    "name_questions": "attention_grader.term.validate_labels",
}

#: The Jupyter server extensions (jupyter-settings/jupyter_server_config.d/attention_grader.json,
#: the hub's install.py): their module names are as stable as :data:`NAMES`.
SERVER_EXTENSIONS = (
    "attention_grader.pages.csp",
    "attention_grader.term.formgrader_scores",
    "attention_grader.term.validate_labels",
    "attention_grader.term.student_clock",
)


def __getattr__(name: str) -> Any:
    if name not in NAMES:
        raise AttributeError(
            f"attention_grader.plugins has no {name!r}: the names configs use are {sorted(NAMES)}"
        )
    value = getattr(importlib.import_module(NAMES[name]), name)
    globals()[name] = value  # found once; later uses do not come here
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, "NAMES"])

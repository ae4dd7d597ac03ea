"""One uid for every pod (Kubernetes): the student of a submission is the folder the hub mounted.

On Zero to JupyterHub every pod runs as the same uid (``jovyan``), so the owner of a folder in
the exchange says nothing about who made it. The course's design for Kubernetes
(docs/design.md, "One uid on Kubernetes") gives each student pod, through KubeSpawner's
``volume_mounts`` with ``subPath``, only:

* ``<exchange>/<course>/inbound/<folder>/`` read-write, where ``<folder>`` is
  :func:`folder_slug` of the name the hub authenticated (the hub's pre_spawn_hook chooses it,
  never the student);
* ``<exchange>/<course>/outbound/`` read-only;
* ``<exchange>/<course>/feedback/<folder>/`` read-only, at ``<exchange>/<course>/feedback/``.

So whoever wrote into ``inbound/<folder>/`` IS that student: with
:attr:`ExchangeLayout.per_student_mounts` on, collect takes the student from the folder
(:func:`folder_student`), never from the owner uid, and release_feedback puts each student's
pages in ``feedback/<folder>/``. Off (one machine, a hub of local accounts) nothing changes.
Standard library and traitlets only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from traitlets import Bool, default
from traitlets.config import Configurable

from attention_grader.config.environment import variable_value

__all__ = ["ExchangeLayout", "folder_slug", "folder_student"]

_HASH_LENGTH = 8
#: KubeSpawner's longest slug of a name that needs hashing (``safe_slug``'s default).
_HASHED_LENGTH = 32
_VALID = re.compile(r"[a-z][a-z0-9-]{0,61}[a-z0-9]|[a-z]")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def folder_slug(name: str) -> str:
    """Return the folder (and pod) name KubeSpawner's ``safe`` slug scheme gives ``name``.

    The same rule as ``kubespawner.slugs.safe_slug`` (KubeSpawner 7): a name that is already a
    valid DNS label (lowercase letters, digits, ``-``; a letter first; at most 63) and has no
    ``--`` is kept; any other becomes ``<safe part>---<sha256[:8]>``. No two names get the same
    folder (a kept name never holds ``--``; a hashed one always does), so no student can be given
    a classmate's folder by the choice of her login name.
    """
    if "--" not in name and _VALID.fullmatch(name):
        return name
    digest = hashlib.sha256(name.encode("utf8")).hexdigest()[:_HASH_LENGTH]
    room = _HASHED_LENGTH - (_HASH_LENGTH + 3)
    safe = _NOT_ALNUM.sub("-", name.lower()).lstrip("-")[:room].rstrip("-")
    if safe and not safe[0].isalpha():
        safe = "x-" + safe[: room - 2]
    return f"{safe or 'x'}---{digest}"


def folder_student(folder: str, roster: Iterable[str] | None) -> str | None:
    """Return the student whose own folder is ``inbound/<folder>/``, or None when nobody's.

    Parameters
    ----------
    folder : str
        The folder's name (made by the hub's pre_spawn_hook from the authenticated name).
    roster : iterable of str or None
        The class's ids: the one whose :func:`folder_slug` is ``folder``. None (no roster): the
        folder's own name, when it is its own slug (``alice``; not ``x---1a2b3c4d``, whose
        student only a roster can name).
    """
    if roster is None:
        return folder if folder_slug(folder) == folder else None
    owners = [student for student in roster if folder_slug(student) == folder]
    return owners[0] if len(owners) == 1 else None


class ExchangeLayout(Configurable):
    """How the exchange keeps students apart: by owner uid (one machine) or by mount (Kubernetes)."""

    per_student_mounts = Bool(
        help="One uid for every pod (Zero to JupyterHub): each student's pod mounts only its own "
        "inbound/<folder>/ (read-write), outbound/ and feedback/<folder>/ (read-only), <folder> "
        "being KubeSpawner's safe slug of the name the hub authenticated. On: collect takes the "
        "student from that folder, never from the owner uid (which is every pod's), refuses a "
        "submission anywhere else in inbound/, and release_feedback puts each student's pages in "
        "feedback/<folder>/. Off (one machine, a hub of local accounts): the folder owner's uid "
        "decides, as there each student is a uid. Default: True when "
        "$ATTENTION_LAB_PER_STUDENT_MOUNTS=1 (the z2jh values and the collect Job set it). "
        "docs/kubernetes.md.",
    ).tag(config=True)

    @default("per_student_mounts")
    def _from_environment(self) -> bool:
        return variable_value("ATTENTION_LAB_PER_STUDENT_MOUNTS") is True

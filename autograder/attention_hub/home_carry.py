"""A student's existing home, carried onto her own filesystem the first time it is mounted.

Copied (``cp -a``), compared file by file, and only then the original is moved (never deleted)
to ``<home's parent>/.attention-lab-homes-before-disk/<user>`` (0700 root: the student cannot
write there any more, the admin removes it when satisfied). A copy that fails or differs stops
the spawn with the reason and leaves the home as it was. Standard library only, plus ``cp``.
"""

from __future__ import annotations

import filecmp
import os
import stat
import time
from pathlib import Path

from attention_hub.mounts import private_dir, run

__all__ = ["KEPT_HOMES", "carry_home"]

#: Where carried homes are kept (next to the homes: a rename, not a copy).
KEPT_HOMES = ".attention-lab-homes-before-disk"


def _tree(root: Path) -> dict[str, os.stat_result]:
    """Every entry under ``root`` (relative path -> lstat), links not followed."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = os.lstat(path)
    return found


def _differences(original: Path, copy: Path) -> list[str]:
    """List what of ``original`` differs in ``copy``: type, owner, mode, contents or link."""
    theirs = _tree(copy)
    wrong = []
    for rel, st in _tree(original).items():
        other = theirs.get(rel)
        if other is None:
            wrong.append(f"{rel}: missing")
        elif (stat.S_IFMT(st.st_mode), st.st_uid, stat.S_IMODE(st.st_mode)) != (
            stat.S_IFMT(other.st_mode), other.st_uid, stat.S_IMODE(other.st_mode)
        ):  # fmt: skip
            wrong.append(f"{rel}: type, owner or mode differs")
        elif stat.S_ISREG(st.st_mode) and not filecmp.cmp(
            original / rel, copy / rel, shallow=False
        ):
            wrong.append(f"{rel}: contents differ")
        elif stat.S_ISLNK(st.st_mode) and os.readlink(original / rel) != os.readlink(copy / rel):
            wrong.append(f"{rel}: link target differs")
    return wrong


def carry_home(home: Path, user: str, new_home: Path) -> str:
    """Copy the existing home onto the image, check it, then keep the original out of reach.

    Parameters
    ----------
    home : Path
        The user's home as it is (not yet on their filesystem).
    user : str
        Their login, the kept copy's name.
    new_home : Path
        The empty ``home`` folder on their mounted image.

    Returns
    -------
    str
        What was done, for the hub log.

    Raises
    ------
    OSError
        ``home`` is not a folder, or the copy fails (e.g. larger than the image) or differs:
        ``home`` is left as it was.
    """
    st = os.lstat(home)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{home} is not a folder: not carried onto {user}'s disk")
    try:
        run("cp", "-a", "--one-file-system", f"{home}/.", str(new_home))
    except OSError as err:
        raise OSError(f"{user}'s home could not be copied onto their disk "
                      f"(larger than disk_size?), left as it was: {err}") from err  # fmt: skip
    wrong = _differences(home, new_home)
    if wrong:
        raise OSError(f"{user}'s home copy differs ({'; '.join(wrong[:3])}): left as it was")
    kept_in = home.parent / KEPT_HOMES
    private_dir(kept_in)
    kept = kept_in / user
    if os.path.lexists(kept):
        kept = kept_in / f"{user}-{time.strftime('%Y%m%dT%H%M%S')}"
    os.rename(home, kept)
    return f"home carried onto the disk; the original kept in {kept}"

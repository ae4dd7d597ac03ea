"""attention_grader.common.flag_store: one writer and one reader of a submission's flags."""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import attention_grader
import pytest
from attention_grader.common import flags
from attention_grader.common.flag_store import FLAGS_FILE, read_flags, record_flags
from attention_grader.common.flags import Flag
from nbformat.v4 import new_notebook

PACKAGE = Path(attention_grader.__file__).parent
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "library_stub" not in p.parts)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def test_one_writer_records_both_stores_and_one_reader_reads_them(tmp_path):
    nb = new_notebook()
    quarantine = tmp_path / "quarantine"
    collected = [Flag(flags.BAD_TIMESTAMP, "timestamp.txt is not a time")]
    record_flags(collected, quarantine=quarantine, reset=True)
    every = record_flags([Flag(flags.EDITED_METADATA, "q1: tags removed")], quarantine=quarantine)
    assert [f.kind for f in every] == ["bad_timestamp", "edited_metadata"]
    record_flags(every + every, notebook=nb)
    assert nb.metadata["attention_grader"]["flags"] == [
        ["bad_timestamp", "timestamp.txt is not a time"],
        ["edited_metadata", "q1: tags removed"],
    ]
    assert read_flags(notebook=nb) == every
    assert read_flags(quarantine=quarantine) == every
    assert read_flags(notebook=nb, quarantine=quarantine) == every  # each once
    record_flags([], quarantine=quarantine, reset=True)
    assert read_flags(quarantine=quarantine) == []


def test_the_file_store_never_writes_through_a_link(tmp_path):
    quarantine, target = tmp_path / "q", tmp_path / "gradebook.db"
    quarantine.mkdir()
    target.write_text("precious")
    os.symlink(target, quarantine / FLAGS_FILE)
    record_flags([Flag(flags.LATE, "1 h")], quarantine=quarantine)
    assert target.read_text() == "precious"
    assert json.loads((quarantine / FLAGS_FILE).read_text()) == [["late", "1 h"]]


@pytest.mark.slow
def test_only_the_store_touches_the_stores():
    """One writer: no other module writes the metadata list or flags.json itself."""
    offenders = []
    for path in MODULES:
        if path.name == "flag_store.py":
            continue
        text = path.read_text()
        if re.search(r"""setdefault\(\s*["']flags["']""", text) or 'flags.json"' in text:
            offenders.append(path.name)
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef) and node.name in {"record_flags", "read_flags",
                                                                   "recorded_flags"}:  # fmt: skip
                offenders.append(f"{path.name}: def {node.name}")
    assert not offenders, offenders

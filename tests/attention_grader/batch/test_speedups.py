"""attention_grader.batch.speedups: nbgrader's caches are reused, results and errors unchanged."""

from __future__ import annotations

import jsonschema
import pytest
from attention_grader.batch.speedups import nbgrader_speedups


def test_engines_are_reused_inside_and_restored_after(tmp_path):
    import nbgrader.api as api

    url = f"sqlite:///{tmp_path / 'gb.db'}"
    original = api.create_engine
    with nbgrader_speedups():
        with api.Gradebook(url) as one:
            engine = one.engine
        with api.Gradebook(url) as two:
            assert two.engine is engine
            two.add_student("ana")
        with api.Gradebook(url) as three:
            assert [s.id for s in three.students] == ["ana"]
    assert api.create_engine is original


def test_metadata_validation_raises_the_same_errors():
    from nbformat.v4 import new_code_cell
    from nbgrader.nbgraderformat import MetadataValidator

    good = new_code_cell(metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": 1, "grade_id": "q",
        "schema_version": 3}})  # fmt: skip
    bad = new_code_cell(metadata={"nbgrader": {**good.metadata.nbgrader, "points": "one"}})
    validator = MetadataValidator()
    with pytest.raises(jsonschema.ValidationError) as plain:
        validator.validate_cell(bad)
    with nbgrader_speedups():
        validator.validate_cell(good)
        with pytest.raises(jsonschema.ValidationError) as cached:
            validator.validate_cell(bad)
    assert cached.value.message == plain.value.message


def test_only_a_workers_scratch_copy_skips_waiting_for_the_disk(tmp_path):
    """A worker's private gradebook copy is thrown away (the parent writes the real one from
    the rows it returns): its commits need not wait for the disk. Any other database does.
    """
    import nbgrader.api as api

    scratch, real = tmp_path / "worker.db", tmp_path / "gradebook.db"
    with nbgrader_speedups(scratch=str(scratch)):
        for path, expected in ((scratch, 0), (real, 2)):  # 0 = OFF, 2 = FULL (the default)
            with api.Gradebook(f"sqlite:///{path}") as gb:
                gb.add_student("ana")
                with gb.engine.connect() as conn:
                    sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
            assert sync == expected, path
            with api.Gradebook(f"sqlite:///{path}") as gb:
                assert [s.id for s in gb.students] == ["ana"]


def test_the_kernels_font_cache_is_found_without_importing_matplotlib(tmp_path, monkeypatch):
    """Every grading child seeded the kernel's font cache by importing matplotlib (0.4 s each)."""
    import subprocess
    import sys

    fonts = tmp_path / "cache" / "matplotlib"
    fonts.mkdir(parents=True)
    (fonts / "fontlist-v390.json").write_text("{}")
    script = (
        "import sys\n"
        "from attention_grader.sandbox.sandbox_launch import _seed_matplotlib_cache\n"
        f"_seed_matplotlib_cache({str(tmp_path / 'dest')!r})\n"
        "print('matplotlib' in sys.modules)\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
    assert (tmp_path / "dest" / "fontlist-v390.json").is_file()


def test_the_teachers_side_is_read_once_per_worker_and_every_time_outside():
    from attention_grader.common.run_cache import read_once, reading_once

    calls: list[int] = []

    def read() -> int:
        calls.append(1)
        return len(calls)

    assert [read_once(("cells",), read) for _ in range(2)] == [1, 2]  # plain nbgrader: each time
    with nbgrader_speedups():
        assert reading_once()
        assert [read_once(("cells",), read) for _ in range(3)] == [3, 3, 3]
        assert read_once(("other",), read) == 4
    assert not reading_once() and read_once(("cells",), read) == 5  # a new worker reads again


def test_an_engines_tables_are_made_once_and_a_new_database_still_gets_them(tmp_path):
    """``Gradebook()`` checks every table (``create_all``) at each of its ~11 opens per
    submission; a reused engine's tables are there after its first open.
    """
    import nbgrader.api as api

    made: list[object] = []
    real = api.Base.metadata.create_all

    def counting(*args, **kwargs):
        made.append(kwargs.get("bind"))
        return real(*args, **kwargs)

    api.Base.metadata.create_all = counting
    try:
        with nbgrader_speedups():
            for _ in range(3):
                with api.Gradebook(f"sqlite:///{tmp_path / 'a.db'}") as gb:
                    gb.update_or_create_student("ana")
            with api.Gradebook(f"sqlite:///{tmp_path / 'b.db'}") as gb:
                gb.add_student("new")  # a second database: its tables are made
    finally:
        del api.Base.metadata.create_all
    assert len(made) == 2 and made[0] is not made[1]

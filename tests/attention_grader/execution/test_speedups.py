"""attention_grader.execution.speedups: nbgrader's caches are reused, results and errors unchanged."""

from __future__ import annotations

import jsonschema
import pytest
from attention_grader.execution.speedups import nbgrader_speedups


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

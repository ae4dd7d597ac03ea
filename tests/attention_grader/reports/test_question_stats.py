"""Per-question statistics (attention_grader.reports.question_stats).

The statistics of a graded class, read from its gradebook, are tests/attention_grader/term/
tests/attention_grader/reports/test_report.py's (``test_question_statistics``).
"""

from __future__ import annotations

import pytest
from attention_grader.reports.question_stats import difficulty_label


@pytest.mark.parametrize(("facility", "label"), [(1, "easy"), (0.8, "easy"), (0.79, "medium"),
                                                 (0.5, "medium"), (0.49, "hard"), (0, "hard")])  # fmt: skip
def test_difficulty_bands(facility, label):
    assert difficulty_label(facility) == label

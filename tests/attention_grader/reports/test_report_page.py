"""The class report's page and the helpers the other teacher pages share (attention_grader.reports.report_page).

The page of a graded class is tests/attention_grader/reports/test_report.py's.
"""

from __future__ import annotations

from attention_grader.reports.report_page import html_table, page_start, score_bins


def test_score_bins_give_one_bar_per_whole_score():
    import numpy as np

    edges = score_bins(15)
    assert len(edges) - 1 == 16 and edges[0] == -0.5 and edges[-1] == 15.5
    counts, _ = np.histogram([0, 14, 14, 15, 13.6], bins=edges)
    assert counts[14] == 3 and counts[15] == 1 and counts[0] == 1 and counts.sum() == 5


def test_shared_page_helpers_escape_and_style():
    """page_start / html_table: the other teacher pages build on them."""
    head = page_start("Gain <b>")
    assert head.startswith("<!doctype html>") and "<h1>Gain &lt;b&gt;</h1>" in head
    assert "border-collapse" in head
    assert "<td>&lt;i&gt;</td>" in html_table(["x"], [["<i>"]])

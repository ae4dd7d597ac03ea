"""Hands in under a student id that is a spreadsheet formula: grades and summaries are CSVs."""

STUDENT = '=HYPERLINK("https:evil.example","open me")'
EXPECT_SCORE = 3

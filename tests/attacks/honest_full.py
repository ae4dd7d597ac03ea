"""Honest: every answer right. Full marks, no flags, in the same batch as the attacks."""

EXPECT_SCORE = 3
EXPECT_FLAGS: set[str] = set()

"""Hands in under a student id that is HTML (the folder's name): pages print ids."""

STUDENT = "<img src=x onerror=\"window.__pwned=(window.__pwned||0)+1;document.title='PWNED'\">"
EXPECT_SCORE = 3

"""Every HTML page: sanitising, the CSP, offline maths, the feedback and formgrader pages, the lessons' and docs' static site."""

"""What the tests share: the course builder and graded classes, the run cache, answer sets and
fixtures' helpers. Imported by dotted name (``from tests.support.graded_classes import ...``):
pyproject's pytest ``pythonpath`` puts the repository on ``sys.path``.
"""

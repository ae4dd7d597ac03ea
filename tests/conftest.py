"""Fixtures shared by the library's tests: the two preset explorers, closed after each test."""

import pytest

from attention_lab.explorer.query_explorer import QueryExplorer


@pytest.fixture
def tiffin():
    explorer = QueryExplorer.tiffin()
    yield explorer
    explorer.close()


@pytest.fixture
def isro():
    explorer = QueryExplorer.isro()
    yield explorer
    explorer.close()

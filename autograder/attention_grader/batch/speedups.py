"""Two caches that make nbgrader's per-submission bookkeeping cheap, without changing its results.

Profiling ``Autograde`` on one submission shows that besides running the kernel, most time goes to:

* ``Gradebook.__init__`` creating a new SQLAlchemy engine ~10 times per submission; each new engine
  starts with an empty compiled-statement cache, so every query is compiled again. Here the engine
  is created once per database URL and reused (``Gradebook.close`` only disposes its connection
  pool, which the engine re-creates on demand).
* ``CheckCellMetadata`` calling ``jsonschema.validate(metadata, schema)`` per cell, which checks
  nbgrader's (constant) schema against the meta-schema every time. Here the validator is built
  once per schema; errors raised are the same (``jsonschema.exceptions.best_match``).

* ``Gradebook.__init__`` checking every table (``create_all``) at each of its ~11 opens per
  submission: a reused engine's tables exist after its first open, so they are made once.
* every commit waiting for the disk (``fsync``), some 40 per submission. A grading worker's
  gradebook is a private copy it throws away (the parent writes the real gradebook from the rows
  the worker returns: :mod:`attention_grader.batch.gradebook_sync`), so that copy, and only
  it, is opened with ``PRAGMA synchronous = OFF``.

* the teacher's side of a notebook (its cells in the gradebook, its ``source/`` notebook) read
  and parsed again for every submission, in every grading child:
  :func:`~attention_grader.common.run_cache.read_once` keeps it for
  the worker's life (one grading run, over a gradebook copy no one else writes), and the worker
  reads it before forking the child, which inherits it.

All are applied inside :func:`nbgrader_speedups` and undone on exit; grading workers keep them for
their lifetime. Outside (plain ``nbgrader autograde``, the formgrader) nothing is kept.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import Any

from attention_grader.common.run_cache import keeping

__all__ = ["nbgrader_speedups"]


class _CachedJsonschema:
    """Stands in for the ``jsonschema`` module inside ``nbgrader.nbgraderformat.common``."""

    def __init__(self, real: types.ModuleType) -> None:
        self._real = real
        self._validators: dict[int, tuple[Any, Any]] = {}

    def validate(self, instance: object, schema: Any, *args: object, **kwargs: object) -> None:
        if args or kwargs:
            self._real.validate(instance, schema, *args, **kwargs)
            return
        validator = self._validators.get(id(schema))
        if validator is None:
            cls = self._real.validators.validator_for(schema)
            cls.check_schema(schema)
            validator = self._validators[id(schema)] = (cls(schema), schema)
        error = self._real.exceptions.best_match(validator[0].iter_errors(instance))
        if error is not None:
            raise error

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)


def _no_disk_wait(dbapi_connection: Any, _record: object) -> None:
    """Open a throw-away SQLite copy without waiting for the disk on each commit."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous = OFF")
    cursor.close()


@contextlib.contextmanager
def nbgrader_speedups(scratch: str | None = None) -> Iterator[None]:
    """Reuse SQLAlchemy engines and jsonschema validators inside nbgrader while the block runs.

    ``scratch``: the path of a worker's private SQLite copy of the gradebook (thrown away after
    grading); its commits do not wait for the disk. Any other database is opened as nbgrader does.
    """
    import nbgrader.api as api
    import nbgrader.nbgraderformat.common as common
    from sqlalchemy import event

    real_create_engine, real_jsonschema = api.create_engine, common.jsonschema
    engines: dict[tuple[str, tuple[object, ...], tuple[tuple[str, object], ...]], Any] = {}

    def create_engine(url: object, *args: object, **kwargs: object) -> Any:
        key = (str(url), args, tuple(sorted(kwargs.items())))
        if key not in engines:
            engines[key] = real_create_engine(url, *args, **kwargs)
            if scratch is not None and str(url) == f"sqlite:///{scratch}":
                event.listen(engines[key], "connect", _no_disk_wait)
        return engines[key]

    metadata = api.Base.metadata
    own_create_all = metadata.__dict__.get("create_all")
    real_create_all, made = metadata.create_all, set()

    def create_all(*args: object, bind: Any = None, **kwargs: object) -> None:
        if bind is None or bind not in made:  # a reused engine's tables exist after its first
            real_create_all(*args, bind=bind, **kwargs)
            if bind is not None and bind in engines.values():
                made.add(bind)

    api.create_engine = create_engine
    common.jsonschema = _CachedJsonschema(real_jsonschema)
    metadata.create_all = create_all
    try:
        with keeping():
            yield
    finally:
        api.create_engine, common.jsonschema = real_create_engine, real_jsonschema
        if own_create_all is None:
            del metadata.create_all
        else:
            metadata.create_all = own_create_all
        for engine in engines.values():
            engine.dispose()

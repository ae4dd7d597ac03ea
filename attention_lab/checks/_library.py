"""Running a student's function safely: tripwires on libraries, static library use, errors.

An implement-it exercise must not call a finished implementation. Two defences:

* statically, the names a function (and the helpers and closures it reaches) refers to are
  inspected; a grader's proxy for a function in another process carries the grader's own
  finding instead, as ``attention_library_use`` (str or None), and has no ``__code__``;
* at run time, ``attention_lab``, ``scipy`` and ``torch`` are replaced by tripwires while the
  function runs in this process.
"""

from __future__ import annotations

import contextlib
import re
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NoReturn

from ._base import AnswerFormatError, Misconception, WrongAnswer, quiet

#: Libraries an implement-it exercise must not call (roots of module names): the one list, which
#: the grader reads too (its static reading of the source, the stub kernel, the flags).
FORBIDDEN_ROOTS = ("attention_lab", "scipy", "torch", "tensorflow", "jax")
_NOT_REPORTED = object()


class _Tripwire(BaseException):
    """Raised when forbidden library code is called.

    A BaseException, so the student's own ``except Exception`` cannot swallow it.
    """


def _tripwire(qualname: str) -> Callable[..., NoReturn]:
    def tripped(*args: object, **kwargs: object) -> NoReturn:
        raise _Tripwire(qualname)

    tripped.__name__ = qualname.rsplit(".", 1)[-1]
    return tripped


class _TripwireModule(types.ModuleType):
    """Stands in for an uninstalled/unimported library while the student's code runs."""

    def __getattr__(self, attr: str) -> NoReturn:
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise _Tripwire(f"{self.__name__}.{attr}")


_TRIPWIRE_MODULES = ("scipy", "scipy.special", "torch", "torch.nn", "torch.nn.functional")


@contextlib.contextmanager
def _tripwires() -> Iterator[None]:
    """Replace library implementations by tripwires while the student's function runs."""
    patched: list[tuple[object, str, object]] = []
    inserted: list[str] = []
    targets: list[str] = [m for m in ("attention_lab", "attention_lab.core") if m in sys.modules]
    for modname in targets:
        module = sys.modules[modname]
        for attr in getattr(module, "__all__", []):
            # vars(), not getattr(): a lazily imported attribute (plots, widgets) would import
            # matplotlib here; what is not loaded yet cannot be bound by the student either.
            value = vars(module).get(attr)
            if isinstance(value, types.FunctionType):
                patched.append((module, attr, value))
                setattr(module, attr, _tripwire(f"{modname}.{attr}"))
    for modname in _TRIPWIRE_MODULES:
        if modname in sys.modules:
            # Any: a third-party module whose attributes mypy cannot know
            library: Any = sys.modules[modname]
            if hasattr(library, "softmax"):
                patched.append((library, "softmax", library.softmax))
                library.softmax = _tripwire(f"{modname}.softmax")
        else:
            sys.modules[modname] = _TripwireModule(modname)
            inserted.append(modname)
    try:
        yield
    finally:
        for owner, attr, original in reversed(patched):
            setattr(owner, attr, original)
        for modname in inserted:
            sys.modules.pop(modname, None)


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """Yield a code object and every nested one (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _forbidden_reference(obj: object) -> str | None:
    """Return the dotted name of ``obj`` if it is (or belongs to) a forbidden library, else None."""
    if isinstance(obj, types.ModuleType):
        modname = obj.__name__
    else:
        modname = getattr(obj, "__module__", None) or ""
        if not isinstance(modname, str):
            return None
    if modname.split(".")[0] in FORBIDDEN_ROOTS:
        label = getattr(obj, "__qualname__", getattr(obj, "__name__", ""))
        return modname if isinstance(obj, types.ModuleType) else f"{modname}.{label}"
    return None


def _static_library_use(
    fn: object, _seen: set[types.FunctionType] | None = None, skip: frozenset[str] = frozenset()
) -> str | None:
    """Find a forbidden library among the names ``fn`` (and the helpers it calls) refers to.

    ``skip`` holds global names not to follow (a helper the check replaces by a reference).
    An object without ``__code__`` (a builtin, a grader's proxy) has nothing to inspect here.
    """
    seen = _seen if _seen is not None else set()
    if not isinstance(fn, types.FunctionType) or fn in seen:
        return None
    seen.add(fn)
    closure = [cell.cell_contents for cell in fn.__closure__ or () if _cell_filled(cell)]
    for code in _code_objects(fn.__code__):
        for word in code.co_names:
            found = _name_use(fn, word, seen, skip)
            if found:
                return found
    for obj in closure:
        found = _forbidden_reference(obj) or _static_library_use(obj, seen, skip)
        if found:
            return found
    return None


def _name_use(
    fn: types.FunctionType, word: str, seen: set[types.FunctionType], skip: frozenset[str]
) -> str | None:
    """Return the forbidden library the name ``word`` in ``fn``'s code is or reaches, or None.

    A global function it names is followed (see :func:`_static_library_use`).
    """
    if word.split(".")[0] in FORBIDDEN_ROOTS:  # `import scipy.special` names it whole
        return word
    if word in skip:
        return None
    obj = fn.__globals__.get(word)
    found = _forbidden_reference(obj) if obj is not None else None
    if found:
        return found
    if isinstance(obj, types.FunctionType):
        return _static_library_use(obj, seen, skip)
    return None


def _is_proxy(fn: object) -> bool:
    """Tell whether ``fn`` is a grader's stand-in for a function in another process (module doc)."""
    return hasattr(fn, "attention_library_use") and not isinstance(fn, types.FunctionType)


def library_use(fn: object, skip: frozenset[str] = frozenset()) -> str | None:
    """Return what forbidden library ``fn`` refers to, or None.

    A grader's proxy reports its own static finding as ``fn.attention_library_use``; that
    finding is honoured first. A plain function is inspected here.
    """
    reported = getattr(fn, "attention_library_use", _NOT_REPORTED)
    if reported is not _NOT_REPORTED:
        return str(reported) if reported else None
    try:
        return _static_library_use(fn, skip=skip)
    except (AttributeError, TypeError):  # an exotic callable: nothing readable to inspect
        return None


def _cell_filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 -- an empty closure cell raises ValueError
    except ValueError:
        return False
    return True


def check_function(fn: object, name: str, provided: Iterable[str] = ()) -> None:
    """Check that ``fn`` is a function the student wrote (a visible format test).

    Raises AnswerFormatError if it is not callable and ``Misconception("used_library")`` if its
    code refers to ``attention_lab``, ``scipy``, ``torch`` (or tensorflow/jax). ``provided``
    names helpers the check replaces by a reference while ``fn`` runs: they are not inspected.
    """
    if not callable(fn):
        raise AnswerFormatError(f"{name} is a {type(fn).__name__}; expected a function (def ...).")
    found = library_use(fn, frozenset(provided))
    if found:
        raise Misconception("used_library", name, f"(Your code refers to {found}.)")


class StudentRaised(Exception):
    """The student's function raised an overflow error (a symptom the checks diagnose)."""


def describe(err: BaseException) -> str:
    """``"ExcName: message"``; a grader's proxy already raises with that text."""
    text = str(err)
    if re.match(r"^[A-Z]\w*(Error|Exception|Warning|Exit|Interrupt): ", text):
        return text  # the original exception's name, as a proxy reports it
    return f"{type(err).__name__}: {text}"


#: The start of the message the graded kernel's attention_lab stand-ins raise (see
#: attention_grader.sandbox.implement_it: an implement-it notebook is graded without the library).
HIDDEN_LIBRARY = "attention_lab is not available while an implement-it exercise is graded"
_NO_MODULE = re.compile(r"^ModuleNotFoundError: No module named '([\w.]+)'")


def _missing_library(text: str) -> str | None:
    """Return the forbidden library a student's function tried to use where it is not installed."""
    if HIDDEN_LIBRARY in text:
        return "attention_lab"
    found = _NO_MODULE.match(text)
    if found and found[1].split(".")[0] in FORBIDDEN_ROOTS:
        return found[1]
    return None


def call(
    fn: Callable[..., object], name: str, case: str, *args: object, **kwargs: object
) -> object:
    """Call the student's function quietly, behind tripwires; translate what goes wrong.

    Raises StudentRaised for an overflow (the caller knows whether the inputs were large),
    and a CheckFailure for anything else that went wrong.
    """
    # A grader's proxy runs the code in the student's process: tripwires here would guard nothing.
    tripwires = contextlib.nullcontext() if _is_proxy(fn) else _tripwires()
    try:
        with quiet(), tripwires:
            return fn(*args, **kwargs)
    except _Tripwire as trip:
        raise Misconception("used_library", name, f"(It called {trip.args[0]}.)") from None
    except Exception as err:
        text = describe(err)
        missing = _missing_library(text)
        if missing:
            raise Misconception(
                "used_library", name, f"(It used {missing}, which is not there while it is graded.)"
            ) from None
        if text.startswith("NotImplementedError"):
            raise WrongAnswer(
                f"{name} raised NotImplementedError: replace `raise NotImplementedError()` "
                "with your code."
            ) from None
        if text.startswith(("OverflowError", "FloatingPointError")):
            raise StudentRaised(text) from None
        raise WrongAnswer(
            f"{name} raised {text} on {case}. Run it on a small example of your own to find "
            "out why."
        ) from None


@contextlib.contextmanager
def substituted(
    fn: object, global_name: str, reference: Callable[..., object], reference_path: str
) -> Iterator[None]:
    """While inside, ``fn`` sees ``reference`` under ``global_name`` instead of the student's own.

    So a check of the student's attention runs with a correct softmax even when the student's
    own ``stable_softmax`` (graded in its own cells) is wrong: one bug is charged once. A plain
    function gets its global swapped here; a grader's proxy that offers
    ``substituting(global_name, reference_path)`` (a context manager) does it in the student's
    process; anything else runs unchanged.
    """
    if hasattr(fn, "substituting"):
        with fn.substituting(global_name, reference_path):
            yield
        return
    namespace = getattr(fn, "__globals__", None)
    own = namespace.get(global_name) if isinstance(namespace, dict) else None
    if not isinstance(own, types.FunctionType):
        yield
        return
    assert isinstance(namespace, dict)  # `own` was found in it
    namespace[global_name] = reference
    try:
        yield
    finally:
        if namespace.get(global_name) is reference:
            namespace[global_name] = own

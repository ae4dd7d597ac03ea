"""Kernel-side half of the tamper checks: runs *inside* the student's kernel, never in the grader.

:class:`attention_grader.tamper.InsertGuards` does not import this module in the kernel (the
sandbox need not see the grader's package): it embeds this file's source in a first, hidden cell
that executes it as a private module ``_ag_<nonce>`` *before any student code runs*, so the
snapshot it takes is pristine. Hidden guard cells then call :func:`check` before and after every
autograder test cell:

* ``before``: restore builtins, protected modules (numpy, the check modules, whatever the locked
  cells import), ``sys`` hooks, IPython's shell/kernel hooks and the import names of locked cells;
  replace answers that are objects claiming to equal anything by inert placeholders. Everything
  found changed is reported (the student's earlier cells did it), then the test runs on a clean
  state.
* ``after``: the same comparison; a change here happened *during* the test (a student function
  patched the checker while being checked), so the grader zeroes that test.

Every call prints one report line ``ATTENTION-GUARD <nonce> <json>`` and ends by raising
``GuardCanary(<nonce>)``: when the grader does not see both, the execution machinery was hijacked
and the grader fails the notebook closed. In-process checks can be defeated by code that attacks
this module itself; the static scan flags such code (see README, threat model).
"""

import builtins as _builtins
import json as _json
import sys as _sys

_NONCE = ""
_SNAP: dict = {}

_SYS_ATTRS = ("stdout", "stderr", "displayhook", "excepthook", "exit", "modules", "meta_path")
_SYS_ATTRS += ("path_hooks", "tracebacklimit")
_SYS_KINDS = {"exit": "exit", "excepthook": "traceback", "tracebacklimit": "traceback"}
_SYS_KINDS.update(modules="sys_modules", meta_path="sys_modules", path_hooks="sys_modules")
_SHELL_METHODS = (
    "run_cell",
    "run_cell_async",
    "run_code",
    "run_ast_nodes",
    "showtraceback",
    "showsyntaxerror",
    "_showtraceback",
    "transform_cell",
    "should_run_async",
    "get_exception_only",
    "_get_exc_info",
    "ex",
    "ev",
)
_SHELL_OBJECTS = ("displayhook", "display_pub", "InteractiveTB", "SyntaxTB", "CustomTB")
_SHELL_OBJECTS += ("custom_exceptions", "compile", "user_ns", "user_global_ns")
_KERNEL_METHODS = ("do_execute", "execute_request", "send_response", "_publish_execute_input")
_SESSION_METHODS = ("send", "serialize", "sign", "msg")
_DUNDERS = ("__eq__", "__ne__", "__array__", "__array_function__", "__array_ufunc__")
_DUNDERS += ("__array_wrap__", "__array_finalize__", "__float__", "__bool__", "__len__")


class GuardCanary(Exception):
    """Raised at the end of every guard cell; its absence means errors are being swallowed."""


class ExitBlocked(Exception):
    """Raised instead of ending the kernel: a notebook may not stop its own grading."""


_EXITS: list = []


def _block_exits():
    """Replace os._exit / os.abort with a function that raises (and is reported) instead."""
    import os
    import posix

    def blocked(*args, **kwargs):
        _EXITS.append(("exit", "the notebook tried to end the kernel (os._exit / os.abort)"))
        raise ExitBlocked("the grader does not let a notebook end its kernel")

    for module in (os, posix):
        for name in ("_exit", "abort"):
            if hasattr(module, name):
                setattr(module, name, blocked)


class RejectedAnswer:
    """Stands in for an answer object that could fool comparisons; every check fails on it."""

    __slots__ = ("why",)

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return f"<answer rejected by the grader: {self.why}>"

    __str__ = __repr__


#: Builtins IPython and ipykernel swap in and out around every cell: not tampering.
_VOLATILE_BUILTINS = frozenset(
    ("input", "raw_input", "get_ipython", "exit", "quit", "display", "_", "__", "___")
)


def _same(a, b) -> bool:
    """Identity, or the same bound method re-created (``obj.method`` is a new object each time)."""
    if a is b:
        return True
    method = type(_same.__get__(0))
    return (
        type(a) is method
        and type(b) is method
        and a.__func__ is b.__func__
        and a.__self__ is b.__self__
    )


def _user_code(fn) -> bool:
    code = getattr(fn, "__code__", None)
    name = getattr(code, "co_filename", "")
    return bool(code) and (name.startswith("<") or "/ipykernel_" in name)


def _user_class(cls) -> bool:
    """A class written in the notebook (or by exec): its methods come from cell code."""
    for klass in getattr(cls, "__mro__", ()):
        if klass.__module__ == "__main__":
            return True
        for value in vars(klass).values():
            if _user_code(getattr(value, "__func__", value)):
                return True
    return False


def _copy_vars(obj) -> dict:
    return dict(vars(obj))


def install(nonce, modules, shell, installed=()):
    """Take the pristine snapshot. Called once, by the first hidden cell, before student code.

    ``installed`` names modules that must come from the environment: one imported from the
    submission folder (a handed-in ``numpy.py``) is reported, and the grader zeroes the notebook.
    """
    global _NONCE
    _NONCE = nonce
    import importlib

    _block_exits()
    snap = _SNAP
    snap["builtins"] = {k: v for k, v in vars(_builtins).items() if k not in _VOLATILE_BUILTINS}
    snap["modules"] = {}
    snap["classes"] = {}
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module the notebook does not have is not protected
            continue
        snap["modules"][name] = (mod, _copy_vars(mod))
        for value in list(vars(mod).values()):
            if isinstance(value, type) and value.__module__ == name:
                snap["classes"][(name, value.__qualname__)] = (value, _copy_vars(value))
    snap["sys"] = {a: getattr(_sys, a) for a in _SYS_ATTRS if hasattr(_sys, a)}
    snap["sys_lists"] = {"meta_path": list(_sys.meta_path), "path_hooks": list(_sys.path_hooks)}
    snap["sys_modules"] = {n: m for n, m in _sys.modules.items()}
    snap["trace"] = (_sys.gettrace(), _sys.getprofile())
    snap["shell"] = shell
    if shell is not None:
        keep = _SHELL_OBJECTS + _SHELL_METHODS
        snap["shell_dict"] = {k: v for k, v in vars(shell).items() if k in keep}
        snap["shell_class"] = {m: getattr(type(shell), m, None) for m in _SHELL_METHODS}
        # Objects (not methods) kept on the shell instance: compared by identity.
        for key in _SHELL_OBJECTS:
            if key in vars(shell):
                snap["shell_dict"].setdefault(key, vars(shell)[key])
        snap["events"] = {k: list(v) for k, v in shell.events.callbacks.items()}
        snap["transformers"] = _transformer_lists(shell)
        snap["user_ns_keys"] = {"__builtins__": shell.user_ns.get("__builtins__")}
        kernel = getattr(shell, "kernel", None)
        snap["kernel"] = kernel
        if kernel is not None:
            snap["kernel_class"] = {m: getattr(type(kernel), m, None) for m in _KERNEL_METHODS}
            snap["kernel_dict"] = {k: v for k, v in vars(kernel).items() if k in _KERNEL_METHODS}
            snap["handlers"] = dict(getattr(kernel, "shell_handlers", {}))
            session = kernel.session
            snap["session"] = session
            snap["session_class"] = {m: getattr(type(session), m, None) for m in _SESSION_METHODS}
            snap["session_dict"] = {k: v for k, v in vars(session).items() if k in _SESSION_METHODS}
    _report("install", "", _shadowed(installed))


def _shadowed(installed):
    import os

    here = os.path.realpath(os.getcwd()) + os.sep
    changes = []
    for name in installed:
        entry = _SNAP["modules"].get(name)
        path = getattr(entry[0], "__file__", None) if entry else None
        if path and os.path.realpath(path).startswith(here):
            detail = f"'{name}' is imported from a file handed in with the notebook"
            changes.append(["sys_modules", detail])
    return changes


def _transformer_lists(shell):
    itm = shell.input_transformer_manager
    return {
        "input_transformers_post": (shell, list(shell.input_transformers_post)),
        "ast_transformers": (shell, list(shell.ast_transformers)),
        "cleanup_transforms": (itm, list(itm.cleanup_transforms)),
        "line_transforms": (itm, list(itm.line_transforms)),
        "token_transformers": (itm, list(itm.token_transformers)),
    }


def _restore_state(changes):
    """Put back everything snapshotted; append ``(kind, detail)`` for each difference."""
    snap = _SNAP
    # 1. builtins first: everything below relies on them.
    bdict = vars(_builtins)
    for name, value in snap["builtins"].items():
        if not _same(bdict.get(name, changes), value):
            bdict[name] = value
            changes.append(("builtins", f"builtins.{name} was replaced"))
    # 2. sys hooks, the module table and import machinery.
    for attr, value in snap["sys"].items():
        if not _same(getattr(_sys, attr, None), value):
            setattr(_sys, attr, value)
            changes.append((_SYS_KINDS.get(attr, "kernel_hook"), f"sys.{attr} was replaced"))
    if "tracebacklimit" not in snap["sys"] and hasattr(_sys, "tracebacklimit"):
        del _sys.tracebacklimit
        changes.append(("traceback", "sys.tracebacklimit was set (tracebacks hidden)"))
    for attr, items in snap["sys_lists"].items():
        current = getattr(_sys, attr)
        if current != items:
            current[:] = items
            changes.append(("sys_modules", f"sys.{attr} was changed (import hooks)"))
    if (_sys.gettrace(), _sys.getprofile()) != snap["trace"]:
        _sys.settrace(snap["trace"][0])
        _sys.setprofile(snap["trace"][1])
        changes.append(("kernel_hook", "a trace/profile function was installed"))
    for name, (mod, contents) in snap["modules"].items():
        if _sys.modules.get(name) is not mod:
            _sys.modules[name] = mod
            changes.append(("sys_modules", f"sys.modules[{name!r}] was replaced"))
        live = vars(mod)
        for key, value in contents.items():
            if live.get(key, changes) is not value:
                live[key] = value
                changes.append(("monkeypatch", f"{name}.{key} was replaced"))
    for (name, qual), (cls, contents) in snap["classes"].items():
        live = vars(cls)
        for key, value in contents.items():
            if key in ("__dict__", "__weakref__", "__doc__"):
                continue
            if not _same(live.get(key, changes), value):
                setattr(cls, key, value)
                changes.append(("monkeypatch", f"{name}.{qual}.{key} was replaced"))
        for key in [k for k in live if k not in contents]:
            delattr(cls, key)
            changes.append(("monkeypatch", f"{name}.{qual}.{key} was added"))
    _restore_shell(changes)


def _restore_shell(changes):
    snap = _SNAP
    shell = snap.get("shell")
    if shell is None:
        return
    _restore_methods(shell, "the shell", snap["shell_dict"], snap["shell_class"], changes)
    callbacks = shell.events.callbacks
    for event, funcs in snap["events"].items():
        if not _same_list(callbacks.get(event, []), funcs):
            callbacks[event] = list(funcs)
            changes.append(("kernel_hook", f"an IPython '{event}' event callback was registered"))
    for key, (owner, items) in snap["transformers"].items():
        current = getattr(owner, key)
        if not _same_list(current, items):
            current[:] = items
            changes.append(("kernel_hook", f"IPython {key} were changed"))
    ns = shell.user_ns
    if ns.get("__builtins__") is not snap["user_ns_keys"]["__builtins__"]:
        ns["__builtins__"] = snap["user_ns_keys"]["__builtins__"]
        changes.append(("builtins", "__builtins__ was rebound in the notebook"))
    kernel = snap.get("kernel")
    if kernel is None:
        return
    _restore_methods(kernel, "the kernel", snap["kernel_dict"], snap["kernel_class"], changes)
    handlers = getattr(kernel, "shell_handlers", {})
    if set(handlers) != set(snap["handlers"]) or not all(
        _same(handlers[k], v) for k, v in snap["handlers"].items()
    ):
        handlers.clear()
        handlers.update(snap["handlers"])
        changes.append(("kernel_hook", "the kernel's message handlers were changed"))
    session = snap["session"]
    if kernel.session is not session:
        kernel.session = session
        changes.append(("kernel_hook", "the kernel's session was replaced"))
    _restore_methods(session, "the session", snap["session_dict"], snap["session_class"], changes)


def _same_list(a, b) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))


def _restore_methods(obj, label, inst, cls_snap, changes):
    """Undo instance overrides and class patches of the methods named in ``cls_snap``."""
    live = vars(obj)
    for key, value in cls_snap.items():
        if key in live and key not in inst:
            del live[key]
            changes.append((_shell_kind(key), f"{label}'s {key} was overridden"))
        if getattr(type(obj), key, None) is not value:
            setattr(type(obj), key, value)
            changes.append((_shell_kind(key), f"{label}'s class {key} was patched"))
    for key, value in inst.items():
        if not _same(live.get(key, changes), value):
            live[key] = value
            changes.append((_shell_kind(key), f"{label}'s {key} was replaced"))


def _shell_kind(key):
    if "traceback" in key.lower() or "TB" in key or key in ("showsyntaxerror", "custom_exceptions"):
        return "traceback"
    return "kernel_hook"


def _rebind_imports(bindings, changes):
    """Give the locked cells' import names their pristine objects back (``np``, ``checks``...)."""
    ns = _SNAP["shell"].user_ns if _SNAP.get("shell") is not None else {}
    for alias, module, attr in bindings:
        entry = _SNAP["modules"].get(module)
        if entry is None:
            continue
        mod, contents = entry
        value = mod if attr is None else contents.get(attr, changes)
        if value is changes:
            continue
        if alias in ns and ns[alias] is not value:
            changes.append(("rebound_import", f"the notebook rebound '{alias}'"))
        ns[alias] = value


def _shadowed_builtins(names, changes):
    ns = _SNAP["shell"].user_ns if _SNAP.get("shell") is not None else {}
    for name in names:
        if name in _SNAP["builtins"] and name in ns and ns[name] is not _SNAP["builtins"][name]:
            del ns[name]
            changes.append(("builtins", f"the notebook shadowed the builtin '{name}'"))


def _clean(value, depth=0):
    """Return ``(value, why)``: a plain value to grade, and why it was changed (or None)."""
    import numpy as np

    kind = type(value)
    if kind in (int, float, complex, bool, str, bytes, type(None)) or kind in _NUMPY_SCALARS:
        return value, None
    if depth > 4:
        return value, None
    if kind is np.ndarray:
        if value.dtype != object:
            return value, None
        items = [_clean(v, depth + 1) for v in value.ravel().tolist()]
        why = next((w for _, w in items if w), None)
        if why is None:
            return value, None
        return RejectedAnswer(why), why
    if isinstance(value, np.ndarray):
        why = f"an array subclass {kind.__name__} that overrides comparisons"
        return np.array(np.asarray(value), copy=True), why
    if kind in (list, tuple):
        items = [_clean(v, depth + 1) for v in value]
        why = next((w for _, w in items if w), None)
        return (kind(v for v, _ in items), why) if why else (value, None)
    if kind is dict:
        items = {k: _clean(v, depth + 1) for k, v in value.items()}
        why = next((w for _, w in items.values() if w), None)
        return ({k: v for k, (v, _) in items.items()}, why) if why else (value, None)
    if isinstance(value, (int, float, str, list, tuple, dict)) and _user_class(kind):
        # The C-level method of the base type reads the stored value, not the subclass's tricks.
        for base, plain in ((int, int.__index__), (float, float.__float__), (str, str.__str__)):
            if isinstance(value, base):
                return plain(value), f"a {base.__name__} subclass {kind.__name__}"
        base = next(b for b in (list, tuple, dict) if isinstance(value, b))
        why = f"a {base.__name__} subclass {kind.__name__}"
        return _clean(base(value), depth + 1)[0], why
    if _user_class(kind):
        tricks = [d for d in _DUNDERS if any(d in vars(k) for k in kind.__mro__[:-1])]
        why = f"an object of the notebook's class {kind.__name__}"
        if tricks:
            why += " defining " + ", ".join(tricks)
        return RejectedAnswer(why), why
    return value, None


def _clean_answers(names, changes):
    ns = _SNAP["shell"].user_ns if _SNAP.get("shell") is not None else {}
    for name in names:
        if name not in ns:
            continue
        value, why = _clean(ns[name])
        if value is not ns[name]:
            ns[name] = value
        if why:
            changes.append(("fake_answer", f"'{name}' is {why}"))


def _report(phase, cell, changes):
    line = _json.dumps({"phase": phase, "cell": cell, "changes": changes})
    stream = _SNAP.get("sys", {}).get("stdout", _sys.stdout)
    stream.write(f"ATTENTION-GUARD {_NONCE} {line}\n")
    stream.flush()
    raise GuardCanary(_NONCE)


def check(phase, cell, answers, bindings):
    """Restore the pristine state around test cell ``cell`` and report what had changed."""
    changes = []
    _restore_state(changes)
    if _EXITS:
        changes.extend(_EXITS)
        _EXITS.clear()
    if phase == "before":
        _rebind_imports(bindings, changes)
        _shadowed_builtins(answers, changes)
        _clean_answers([n for n in answers if n not in vars(_builtins)], changes)
    seen = set()
    unique = [c for c in changes if not (c in seen or seen.add(c))]
    _report(phase, cell, [list(c) for c in unique])


try:  # numpy scalar types are plain answers
    import numpy as _np

    _NUMPY_SCALARS = frozenset(
        t for t in vars(_np).values() if isinstance(t, type) and issubclass(t, _np.generic)
    )
except ImportError:  # pragma: no cover
    _NUMPY_SCALARS = frozenset()

"""Runs INSIDE a student's kernel, with ``_kernel_side.py``: the objects that stay there.

An object that is not data (a student's class, an instance of one, a started generator) never
leaves the kernel: the grader gets its number in a table kept in the student's namespace, and a
stand-in (:mod:`attention_grader.channel.object_handles`) that asks for each use of it, one
request at a time (``_on_handle``). Sent as text before the agent's and run in the same namespace,
which gives ``_USER_NS``, ``_decode``, ``_encode``, ``_items``, ``_invoke`` and ``_raised``.
"""

_HANDLES = "__attention_grader_handles__"
_HANDLE_IDS = "__attention_grader_handle_ids__"
#: Dunders whose presence on a class the grader's stand-in class mirrors (see object_handles.py).
_SLOTS = ("__call__", "__len__", "__iter__", "__next__", "__getitem__", "__setitem__",
          "__delitem__", "__contains__", "__float__", "__int__", "__index__")  # fmt: skip
_CUSTOM = ("__eq__", "__lt__", "__le__", "__gt__", "__ge__")


def _keep(value):
    """The number of ``value`` in the table of handles (the same object keeps its number)."""
    table = _USER_NS.setdefault(_HANDLES, {})
    ids = _USER_NS.setdefault(_HANDLE_IDS, {})
    key = ids.get(id(value))
    if key is not None and table.get(key) is value:
        return key
    key = len(table) + 1
    table[key] = value
    ids[id(value)] = key
    return key


def _class_info(cls):
    """What the grader needs to stand in for objects of ``cls``: its name and its dunders."""
    mro = [k for k in getattr(cls, "__mro__", ()) if k is not object]
    caps = [name for name in _SLOTS if any(callable(vars(k).get(name)) for k in mro)]
    caps += [name for name in _CUSTOM if getattr(cls, name, None) is not getattr(object, name)]
    hash_ = getattr(cls, "__hash__", None)
    caps.append("unhashable" if hash_ is None else "" if hash_ is object.__hash__ else "__hash__")
    error = isinstance(cls, type) and issubclass(cls, BaseException)
    return {
        "key": _keep(cls),
        "name": str(getattr(cls, "__name__", "object")),
        "module": str(getattr(cls, "__module__", "")),
        "caps": [c for c in caps if c],
        "error": [c.__name__ for c in cls.__mro__] if error else [],
    }


def _handle_of(value, handles=True):
    """An object that is not data stays here; the grader gets its number (object_handles.py)."""
    import types

    if isinstance(value, types.ModuleType) or not handles:
        return {"unsupported": f"{type(value).__name__} object"}
    if isinstance(value, type):
        return {"class": _class_info(value)}
    return {"handle": _keep(value), "type": getattr(type(value), "__name__", "object"),
            "class": _class_info(type(value))}  # fmt: skip


_OPERATORS = (
    "eq ne lt le gt ge add sub mul truediv floordiv mod pow matmul and_ or_ xor lshift rshift "
    "iadd isub imul itruediv ifloordiv imod ipow imatmul iand ior ixor ilshift irshift "
    "neg pos abs invert contains"
).split()


def _operate(obj, request):
    """``obj <op> other`` (or ``other <op> obj`` when reflected) for the grader's operators."""
    import operator

    name = str(request.get("operator"))
    if name not in _OPERATORS:
        raise ValueError(f"unknown operator {name!r}")
    fn = getattr(operator, name)
    if name in ("neg", "pos", "abs", "invert"):
        return fn(obj)
    other = _decode(request.get("other"))
    return fn(other, obj) if request.get("reflected") else fn(obj, other)


def _named(name, request):
    """The attribute actions, on the name the grader asked for (never a dunder)."""
    if name.startswith("__"):
        raise AttributeError(name)
    return {
        "attr": lambda obj: getattr(obj, name),
        "setattr": lambda obj: setattr(obj, name, _decode(request.get("value"))),
        "delattr": lambda obj: delattr(obj, name),
    }


def _setitem(obj, request):
    obj[_decode(request.get("key"))] = _decode(request.get("value"))


def _delitem(obj, request):
    del obj[_decode(request.get("key"))]


def _held_class(request):
    return _USER_NS.get(_HANDLES, {}).get(request.get("of"))


def _is_subclass(obj, request):
    cls = _held_class(request)
    return isinstance(obj, type) and isinstance(cls, type) and issubclass(obj, cls)


def _actions(request):
    """``{action: f(obj)}``: each use of a handled object the grader may ask for."""
    import copy
    import operator

    simple = {
        "len": len, "bool": bool, "hash": hash, "repr": repr, "str": str, "dir": dir,
        "copy": copy.copy, "deepcopy": copy.deepcopy, "next": next, "vars": vars,
        "float": float, "int": int, "index": operator.index, "iter": _items,
    }  # fmt: skip
    cls = _held_class(request)
    return {
        **simple,
        "item": lambda obj: obj[_decode(request.get("key"))],
        "setitem": lambda obj: _setitem(obj, request),
        "delitem": lambda obj: _delitem(obj, request),
        "format": lambda obj: format(obj, str(request.get("spec", ""))),
        "operator": lambda obj: _operate(obj, request),
        "isinstance": lambda obj: isinstance(obj, cls) if isinstance(cls, type) else False,
        "issubclass": lambda obj: _is_subclass(obj, request),
    }


def _handle_action(obj, action, request):
    """The value of one use of a handled object (raises what the student's code raised)."""
    if action in ("attr", "setattr", "delattr"):
        return _named(str(request.get("name", "")), request)[action](obj)
    act = _actions(request).get(action)
    if act is None:
        raise ValueError(f"unknown action {action!r}")
    return act(obj)


class _Unsupported:
    def __init__(self, what):
        self.what = what


def _on_handle(request):
    """One use of a handled object: attributes, calls, operators, len, iteration, items, ..."""
    obj = _USER_NS.get(_HANDLES, {}).get(request.get("handle"))
    action = request.get("action")
    if obj is None:
        return {"raised": "ReferenceError", "message": "the object is gone"}
    if action == "call":
        return _invoke(obj, request.get("args", []), request.get("kwargs", {}))
    try:
        result = _handle_action(obj, action, request)
    except BaseException as exc:  # noqa: BLE001 -- the student's error is the answer
        if isinstance(exc, KeyboardInterrupt):
            raise
        return _raised(exc)
    if isinstance(result, _Unsupported):
        return {"value": {"unsupported": result.what}}
    return {"value": _encode(result)}


def _by_handle(data, depth):
    return _USER_NS.get(_HANDLES, {})[data["handle"]]

"""Runs INSIDE a student's kernel during autograde: hands answers out as plain data.

Never imported by the grader: :mod:`attention_grader.answers` sends this file's text to the
kernel with one request (``_REQUEST``, JSON) and the student's namespace (``_USER_NS``), and
reads back one ``display_data`` of :data:`MIME` holding JSON.

Nothing here is trusted. The student's code may replace any of it; then the only thing it can
change is what *its own* answers look like, which is no more than the student could do by
assigning different answers. The grader validates whatever comes back
(:func:`attention_grader.answers.decode`) and runs every check in its own process.

Wire format (the same both ways): JSON null/bool/number/string, or one-key objects
``{"list": [...]}``, ``{"tuple": [...]}``, ``{"set": [...]}``, ``{"dict": [[key, value], ...]}``,
``{"array": nested lists, "dtype": str, "shape": [...]}``, ``{"scalar": value, "dtype": str}``,
``{"callable": name}``, ``{"unsupported": type name}``.
"""

import json as _json

MIME = "application/vnd.attention-grader.answer"
_MAX_ITEMS = 2_000_000
_MAX_DEPTH = 16
_MAX_TEXT = 200_000


def _encode(value, budget, depth=0):
    import numpy as np

    if depth > _MAX_DEPTH:
        return {"unsupported": "nested too deeply"}
    budget[0] -= 1
    if budget[0] < 0:
        return {"unsupported": "too large"}
    if value is None or type(value) is bool:
        return value
    if isinstance(value, np.generic):
        if value.dtype.kind in "biuf":
            return {"scalar": value.item(), "dtype": value.dtype.str}
        return {"unsupported": type(value).__name__}
    if isinstance(value, bool | int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        text = str.__str__(value)
        return text if len(text) <= _MAX_TEXT else {"unsupported": "text too long"}
    if isinstance(value, np.ndarray):
        arr = np.array(value, copy=True, subok=False)
        if arr.dtype.kind not in "biuf":
            return {"unsupported": f"array of {arr.dtype}"}
        budget[0] -= arr.size
        if budget[0] < 0:
            return {"unsupported": "too large"}
        return {"array": arr.tolist(), "dtype": arr.dtype.str, "shape": list(arr.shape)}
    if isinstance(value, list | tuple | set | frozenset):
        kind = "list" if isinstance(value, list) else "tuple" if isinstance(value, tuple) else "set"
        return {kind: [_encode(item, budget, depth + 1) for item in list(value)]}
    if isinstance(value, dict):
        return {
            "dict": [
                [_encode(k, budget, depth + 1), _encode(v, budget, depth + 1)]
                for k, v in list(value.items())
            ]
        }
    if callable(value) and not isinstance(value, type):
        return {"callable": getattr(value, "__name__", "function")}
    return {"unsupported": type(value).__name__}


def _decode(value):
    """Grader-chosen arguments (the same format) back into Python and numpy values."""
    import numpy as np

    if not isinstance(value, dict):
        return value
    if "array" in value:
        arr = np.array(value["array"], dtype=np.dtype(value["dtype"]))
        return arr.reshape(value["shape"])
    if "scalar" in value:
        return np.dtype(value["dtype"]).type(value["scalar"])
    if "list" in value:
        return [_decode(v) for v in value["list"]]
    if "tuple" in value:
        return tuple(_decode(v) for v in value["tuple"])
    if "set" in value:
        return {_decode(v) for v in value["set"]}
    if "dict" in value:
        return {_decode(k): _decode(v) for k, v in value["dict"]}
    raise ValueError("unknown argument encoding")


def _describe(name):
    if name not in _USER_NS:  # noqa: F821 -- given by the grader
        return {"missing": True}
    return {"value": _encode(_USER_NS[name], [_MAX_ITEMS])}  # noqa: F821


def _call(name, args, kwargs):
    fn = _USER_NS.get(name)  # noqa: F821
    if fn is None or not callable(fn):
        return {"raised": "NameError", "message": f"{name} is not defined as a function"}
    try:
        result = fn(*[_decode(a) for a in args], **{k: _decode(v) for k, v in kwargs.items()})
    except BaseException as exc:  # noqa: BLE001 -- the student's error is the answer
        if isinstance(exc, KeyboardInterrupt):
            raise
        return {"raised": type(exc).__name__, "message": str(exc)[:2000]}
    return {"value": _encode(result, [_MAX_ITEMS])}


_SAVED = "__attention_grader_saved__"


def _substitute(name, path, source):
    """Bind the grader's reference function (its ``source``, named by ``path``) to ``name``.

    Compiled from the source the grader sent: an implement-it kernel has no attention_lab.
    """
    import numpy as np

    attr = path.rpartition(".")[2]
    scope = {"np": np, "__name__": "attention_grader_reference"}
    exec(compile(source, "<grader reference>", "exec"), scope)  # noqa: S102 -- the grader's
    saved = _USER_NS.setdefault(_SAVED, {})  # noqa: F821
    saved[name] = (name in _USER_NS, _USER_NS.get(name))  # noqa: F821
    _USER_NS[name] = scope[attr]  # noqa: F821
    return {"value": None}


def _restore(name):
    had, value = _USER_NS.get(_SAVED, {}).pop(name, (False, None))  # noqa: F821
    if had:
        _USER_NS[name] = value  # noqa: F821
    else:
        _USER_NS.pop(name, None)  # noqa: F821
    return {"value": None}


def _answer():
    request = _json.loads(_REQUEST)  # noqa: F821 -- given by the grader
    if request["op"] == "get":
        reply = {name: _describe(name) for name in request["names"]}
    elif request["op"] == "substitute":
        reply = _substitute(request["name"], request["path"], request["source"])
    elif request["op"] == "restore":
        reply = _restore(request["name"])
    else:
        reply = _call(request["name"], request["args"], request["kwargs"])
    from IPython.display import display

    display({MIME: _json.dumps(reply)}, raw=True)


_answer()

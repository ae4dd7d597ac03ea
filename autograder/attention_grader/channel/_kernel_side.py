"""Runs INSIDE a student's kernel during autograde: the kernel-side agent of the answer channel.

Never imported by the grader: :mod:`attention_grader.channel.answer_encoding` sends this file's
text to the kernel with its first request, which compiles it once and keeps it; each request
runs it on one request (``_REQUEST``, JSON, with the caps of ``c.Answers``), the student's
namespace (``_USER_NS``) and the source of :mod:`attention_grader.wire.answer_codec`
(``_CODEC``), and reads back one ``display_data``
of the codec's ``MIME`` holding JSON. The codec (the wire format, both ways) is compiled from that
source; this file (after ``_kernel_handles.py``, the objects that stay in the kernel) holds only
what must run here: a figure's data, a generator's items, calls of the student's functions.

Nothing here is trusted. The student's code may replace any of it; then the only thing it can
change is what *its own* answers look like, which is no more than the student could do by
assigning different answers. The grader validates whatever comes back
(:func:`attention_grader.channel.answer_decoding.decode`) and runs every check in its own process.
"""

import json as _json

_CODEC_MODULE = "attention_grader_answer_codec"


def _load_codec():
    """The codec module compiled from the source the grader sent (kept while that source is).

    Kept in ``sys.modules`` (dataclasses look a module up there), not in the student's namespace.
    """
    import hashlib
    import sys
    import types

    digest = hashlib.sha256(_CODEC.encode()).hexdigest()  # given by the grader
    cached = sys.modules.get(_CODEC_MODULE)
    if isinstance(cached, types.ModuleType) and getattr(cached, "SOURCE_SHA256", "") == digest:
        return cached
    codec = types.ModuleType(_CODEC_MODULE)
    sys.modules[_CODEC_MODULE] = codec
    exec(compile(_CODEC, "<attention-grader codec>", "exec"), codec.__dict__)  # noqa: S102
    codec.SOURCE_SHA256 = digest
    return codec


_codec = _load_codec()
_REQUEST_DATA = _json.loads(_REQUEST)  # given by the grader
_CAPS = _codec.Caps.of(_REQUEST_DATA.get("caps", {}))


class _KernelEncoder(_codec.Encoder):
    """The codec's encoder, with what only the kernel holds: figures, generators, handles."""

    def __init__(self, caps, handles=True):
        super().__init__(caps)
        self.handles = handles  # False while comparing arguments before and after a call

    def refuse(self, what):
        return {"unsupported": what}

    def special(self, value, depth):
        import types

        figure = _figure_data(value)
        if figure is not None:
            return {kind: self(data, depth + 1) for kind, data in figure.items()}
        if isinstance(value, types.GeneratorType) and value.gi_suspended and self.handles:
            return _handle_of(value)  # a started generator: its state is shared, it stays here
        if isinstance(value, types.GeneratorType | map | filter | zip | enumerate | reversed):
            items = _items(value, "generator")
            if isinstance(items, _Unsupported):
                return {"unsupported": items.what}
            return {"generator": [self(item, depth + 1) for item in items]}
        return None

    def other(self, value):
        return _handle_of(value, self.handles)


def _encode(value, handles=True):
    return _KernelEncoder(_CAPS, handles)(value)


class _KernelDecoder(_codec.Decoder):
    """The codec's decoder, with what the grader sends back: handles and the student's functions."""

    def readers(self):
        return {**super().readers(), "handle": _by_handle, "global": _by_name}


def _by_name(data, depth):
    """A student's own function, passed back by its name."""
    name = data["global"]
    if name in _USER_NS:
        return _USER_NS[name]
    return _USER_NS.get(_UNBOUND, {})[name]  # deleted by the test


def _decode(value):
    """Grader-chosen arguments back into Python and numpy values."""
    return _KernelDecoder(_CAPS.depth_only())(value)


def _items(iterable, what="iterable"):
    """The items of an iterable, or an ``_Unsupported`` past the cap."""
    result = []
    for item in iterable:
        if len(result) >= _CAPS.max_yields:
            return _Unsupported(f"{what} of more than {_CAPS.max_yields} items")
        result.append(item)
    return result


def _axes_data(ax):
    """What a test reads of one matplotlib Axes, as plain data (see figure_snapshot.py)."""
    import numpy as np
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle

    def line(item):
        return {
            "x": np.asarray(item.get_xdata()).tolist(),
            "y": np.asarray(item.get_ydata()).tolist(),
            "label": str(item.get_label()),
            "color": to_hex(item.get_color()),
            "linestyle": str(item.get_linestyle()),
            "marker": str(item.get_marker()),
            "linewidth": float(item.get_linewidth()),
        }

    def bar(item):
        x, y, w, h = item.get_x(), item.get_y(), item.get_width(), item.get_height()
        return {"x": float(x), "y": float(y), "width": float(w), "height": float(h),
                "label": str(item.get_label())}  # fmt: skip

    legend = ax.get_legend()
    return {
        "title": {loc: ax.get_title(loc) for loc in ("left", "center", "right")},
        "xlabel": ax.get_xlabel(),
        "ylabel": ax.get_ylabel(),
        "xlim": [float(v) for v in ax.get_xlim()],
        "ylim": [float(v) for v in ax.get_ylim()],
        "xscale": ax.get_xscale(),
        "yscale": ax.get_yscale(),
        "lines": [line(item) for item in ax.lines],
        "patches": [bar(p) for p in ax.patches if isinstance(p, Rectangle)],
        "collections": [
            {
                "offsets": np.asarray(c.get_offsets(), dtype=float).tolist(),
                "label": str(c.get_label()),
            }
            for c in ax.collections
        ],
        "texts": [t.get_text() for t in ax.texts],
        "legend": None if legend is None else [t.get_text() for t in legend.get_texts()],
    }


def _figure_data(value):
    """``{"axes": data}`` or ``{"figure": data}`` for a matplotlib Axes or Figure, else None."""
    import sys

    axes, figure = sys.modules.get("matplotlib.axes"), sys.modules.get("matplotlib.figure")
    if axes is not None and isinstance(value, axes.Axes):
        return {"axes": _axes_data(value)}
    if figure is not None and isinstance(value, figure.Figure):
        title = value._suptitle.get_text() if value._suptitle is not None else ""
        return {"figure": {"axes": [_axes_data(a) for a in value.axes], "suptitle": title}}
    return None


def _describe(name):
    import types

    if name not in _USER_NS:  # given by the grader
        return {"missing": True}
    value = _USER_NS[name]
    if isinstance(value, type):
        return {"value": _handle_of(value)}  # a class: a stand-in class in the grader
    if callable(value) and not isinstance(value, types.ModuleType):
        return {"value": {"callable": name, "handle": _keep(value)}}  # called as this object
    if isinstance(value, types.GeneratorType):
        return {"value": _handle_of(value)}  # its state is the kernel's: next() is a request
    return {"value": _encode(value)}


class _Printed:
    """Collects what the student's function prints during one call (capped), for the test."""

    def __init__(self):
        self.parts, self.size = [], 0

    def write(self, text):
        text = str(text)
        cap = _CAPS.max_printed_chars
        if self.size < cap:
            self.parts.append(text[: cap - self.size])
        self.size += len(text)
        return len(text)

    def flush(self):
        pass


def _snapshot(value):
    return _json.dumps(_encode(value, handles=False))


def _raised(exc):
    bases = [c.__name__ for c in type(exc).__mro__[1:]]
    return {"raised": type(exc).__name__, "message": str(exc)[:2000], "bases": bases}


def _call(name, args, kwargs):
    fn = _USER_NS.get(name)
    if fn is None or not callable(fn):
        return {"raised": "NameError", "message": f"{name} is not defined as a function"}
    return _invoke(fn, args, kwargs)


def _invoke(fn, args, kwargs):
    import contextlib

    values = [_decode(a) for a in args]
    before = [_snapshot(v) for v in values]
    printed, errors = _Printed(), _Printed()
    reply = {}
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
            result = fn(*values, **{k: _decode(v) for k, v in kwargs.items()})
    except BaseException as exc:  # noqa: BLE001 -- the student's error is the answer
        if isinstance(exc, KeyboardInterrupt):
            raise
        reply = _raised(exc)
    else:
        reply = {"value": _encode(result)}
        same = [i for i, v in enumerate(values) if v is result and not _is_atom(v)]
        if same:  # `result is xs`: the grader gives the test its own argument back
            reply["same_as"] = same[0]
    # In-place changes to the grader's arguments go back to it (the test may look at them).
    after = [_snapshot(v) for v in values]
    changed = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if a != b]
    reply["changed"] = [[i, _json.loads(after[i])] for i in changed]
    reply["stdout"] = "".join(printed.parts)
    reply["stderr"] = "".join(errors.parts)[:200]  # warnings too: nbgrader zeroes such a cell
    return reply


def _is_atom(value):
    return value is None or isinstance(value, bool | int | float | str | complex)


_SAVED = "__attention_grader_saved__"
_UNBOUND = "__attention_grader_unbound__"


def _bind(name, value):
    """The test bound a name of the student's: bind it here too (kernel_bindings.py)."""
    _USER_NS[str(name)] = _decode(value)
    return {"value": None}


def _unbind(name):
    """The test deleted a name of the student's: delete it here too, kept aside for its calls."""
    name = str(name)
    if name not in _USER_NS:
        return {"raised": "NameError", "message": f"name '{name}' is not defined"}
    _USER_NS.setdefault(_UNBOUND, {})[name] = _USER_NS.pop(name)
    return {"value": None}


def _substitute(name, path, source):
    """Bind the grader's reference function (its ``source``, named by ``path``) to ``name``.

    Compiled from the source the grader sent: an implement-it kernel has no attention_lab.
    """
    import numpy as np

    attr = path.rpartition(".")[2]
    scope = {"np": np, "__name__": "attention_grader_reference"}
    exec(compile(source, "<grader reference>", "exec"), scope)  # noqa: S102 -- the grader's
    saved = _USER_NS.setdefault(_SAVED, {})
    saved[name] = (name in _USER_NS, _USER_NS.get(name), scope[attr])
    _USER_NS[name] = scope[attr]
    return {"value": None}


def _lent(*args, **kwargs):
    raise RuntimeError("the grader's reference function is only lent during a check")


def _restore(name):
    had, value, lent = _USER_NS.get(_SAVED, {}).pop(name, (False, None, None))
    if had:
        _USER_NS[name] = value
    else:
        _USER_NS.pop(name, None)
    if lent is not None:  # a student's code that kept it keeps a function that only raises
        lent.__code__, lent.__defaults__, lent.__kwdefaults__ = _lent.__code__, None, None
        lent.__globals__.clear()
    return {"value": None}


def _define(source):
    """A test's imports and plain definitions, defined here too (kernel_definitions.py)."""
    try:
        exec(compile(source, "<test definitions>", "exec"), _USER_NS)  # noqa: S102
    except Exception as exc:  # noqa: BLE001 -- as nbgrader, the test's own error
        return _raised(exc)
    return {"value": None}


def _answer():
    request = _REQUEST_DATA
    ops = {
        "get": lambda: {name: _describe(name) for name in request["names"]},
        "substitute": lambda: _substitute(request["name"], request["path"], request["source"]),
        "restore": lambda: _restore(request["name"]),
        "handle": lambda: _on_handle(request),
        "bind": lambda: _bind(request["name"], request["value"]),
        "unbind": lambda: _unbind(request["name"]),
        "define": lambda: _define(request["source"]),
    }
    call = ops.get(
        request["op"], lambda: _call(request["name"], request["args"], request["kwargs"])
    )
    reply = call()
    from IPython.display import display

    display({_codec.MIME: _json.dumps(reply)}, raw=True)


_answer()

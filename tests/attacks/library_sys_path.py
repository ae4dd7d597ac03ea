"""sys.path games: drops the imported package, puts the library's real parent folder first."""

ANSWERS = {
    "q2": (
        "import os, sys\n"
        "for _m in [m for m in sys.modules if m.startswith('attention_lab')]:\n"
        "    del sys.modules[_m]\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'Hidden' not in type(f).__name__]\n"
        "sys.path.insert(0, os.path.dirname('{library}'))\n"
        "from attention_lab.core import softmax as _impl\n"
        "def softmax(x):\n"
        "    return _impl(x)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"library_use"}

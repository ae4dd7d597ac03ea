"""An audit hook that prints the source of everything compiled in the kernel (hidden tests?)."""

ANSWERS = {
    "q1": (
        "import sys\n"
        "def _show(event, args):\n"
        "    if event == 'compile' and args and isinstance(args[0], (str, bytes)):\n"
        "        sys.__stdout__.write(str(args[0])[:2000])\n"
        "        print(str(args[0])[:2000])\n"
        "sys.addaudithook(_show)\n"
        "weights = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()"
    ),
}
EXPECT_SCORE = 3
EXPECT_FLAGS = {"kernel_hook"}

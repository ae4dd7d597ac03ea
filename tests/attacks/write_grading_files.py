"""Zeroes every score in gradebook.db and overwrites source/, autograded/ and feedback/."""

ANSWERS = {
    "q1": (
        "import sqlite3\n"
        "for db in ('../../../gradebook.db', '{course}/gradebook.db'):\n"
        "    try:\n"
        "        con = sqlite3.connect(db)\n"
        "        con.execute('UPDATE grade SET manual_score = 0, auto_score = 0')\n"
        "        con.commit()\n"
        "    except Exception as err:\n"
        "        print('gradebook:', type(err).__name__)\n"
        "for path in ('{course}/source/attacklab/gradecheck.py',\n"
        "             '../../../source/attacklab/gradecheck.py',\n"
        "             '{course}/autograded/honest_full/attacklab/attacklab.ipynb',\n"
        "             '{course}/feedback/pwned.html'):\n"
        "    try:\n"
        "        open(path, 'w').write('check_close = None')\n"
        "    except OSError as err:\n"
        "        print(path, type(err).__name__)\n"
        "weights = np.zeros(3)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"grading_files"}

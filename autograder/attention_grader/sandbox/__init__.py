"""Where a student's kernel runs: bubblewrap, the sandbox user, the implement-it stub, the protections report."""

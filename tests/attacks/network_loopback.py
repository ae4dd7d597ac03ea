"""Connects to a port the grader listens on (loopback) to send its answers out."""

ANSWERS = {
    "q1": (
        "import socket\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'hello')\n"
        "    print('CONNECTED')\n"
        "except OSError as err:\n"
        "    print('network:', type(err).__name__)\n"
        "weights = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()"
    ),
}
EXPECT_SCORE = 3
EXPECT_FLAGS = {"network"}

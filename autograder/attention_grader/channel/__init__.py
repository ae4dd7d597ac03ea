"""The answer channel: requests into the student's kernel (the text sent there), replies decoded, the stand-ins of the student's objects."""

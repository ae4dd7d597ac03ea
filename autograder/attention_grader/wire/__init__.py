"""What crosses to and from a student's kernel as data: answers' types and errors, a cell's code read as Python, the capped kernel client."""

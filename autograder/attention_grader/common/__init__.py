"""What every part reads: the course, the batch summary, safe text, a notebook's outcomes."""

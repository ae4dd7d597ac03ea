"""What every part reads: the batch summary and its flags, safe text, a notebook's outcomes, question labels, variants' key and records."""

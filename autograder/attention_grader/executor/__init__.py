"""One notebook through autograde: the scans before, the executor, its stops, output caps, budget and library flags."""

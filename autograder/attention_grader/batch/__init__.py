"""Many notebooks: a class's grading workers, shards and gradebook copies; the release check of the solution and its variants."""

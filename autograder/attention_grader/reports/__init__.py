"""What the teacher reads about a class: the report (its numbers, tables and page), the misconceptions found, the learning gain."""

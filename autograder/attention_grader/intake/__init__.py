"""A submission made safe before anything reads it (files, notebooks, autograde's hook), due dates, the late penalty, final scores."""

"""One edge box: each camera of a table in a process of its own, its frames shared with the table's process."""

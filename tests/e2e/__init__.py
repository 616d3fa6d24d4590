"""End-to-end tests: compile with the ea CLI, link with C, run."""

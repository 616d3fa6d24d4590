"""tui: the ea-tui terminal workbench (arrives with its issue)."""

"""Modal screens: help (keys), open file, target options."""

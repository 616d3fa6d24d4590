"""`python -m ea_tui [FILE_OR_DIR]`: the same as the ea-tui command."""
import sys

from .app import main

sys.exit(main())

"""Generated artefacts besides machine code: the C header and `.ea.json`."""

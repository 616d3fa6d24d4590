"""The type checker: declarations, statements, expressions, operators, calls
(`checker.check`), the decisions it records (`decisions`), and the lints that
run on the checked tree (`lints`)."""

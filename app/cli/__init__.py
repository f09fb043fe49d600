"""The `decision-journal` command line: thin adapters over core, no Qt on these paths."""

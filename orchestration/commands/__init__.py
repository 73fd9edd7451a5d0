"""The ``assay`` commands, one module per command (the commands that only read the catalog together);
orchestration/cli.py holds the parser that dispatches to them and the exit on an error."""

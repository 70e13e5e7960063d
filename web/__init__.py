"""The dashboard, the live loop and the command line: where the parts are wired together."""

"""Fixture generator: rendered table scenes and whole games with exact labels (issue 4).

Run ``python -m tools.fixturegen --all``; see ``fixtures/README.md``.
"""

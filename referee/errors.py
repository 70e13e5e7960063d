"""The errors the rules core raises; every one is a ``ValueError``."""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error raised by the rules core."""


class InvalidActionError(RulesError):
    """An action's text could not be parsed, or names something that does not exist."""


class IllegalActionError(RulesError):
    """A well-formed action that the rules forbid right now.

    ``rule`` is the rule ID it breaks (for example ``"SP-3.4"``), or ``""``.
    """

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{rule}: {message}" if rule and not message.startswith(rule) else message)
        self.rule = rule


class ConfigError(RulesError):
    """A game was set up with an unknown option, a bad value or a wrong player count."""

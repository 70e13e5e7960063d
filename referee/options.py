"""House-rule options (RULES.md §7.2): declared per game, parsed and validated on load."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.errors import ConfigError

OptionValue = Any


@dataclass(frozen=True)
class OptionSpec:
    """One configuration key of a game, such as ``sp.penalty_tie``."""

    key: str
    """The key as written in RULES.md §7.2."""
    default: OptionValue
    """The value used when the key is not given (the first value listed in §7.2)."""
    choices: tuple[str, ...] = ()
    """Symbolic values accepted; empty when the value is free-form (``parse`` decides)."""
    kind: str = "choice"
    """``choice``, ``bool``, ``int`` (integer at least ``minimum``), ``int_or_choice`` or ``custom``."""
    rule: str = ""
    """The rule or ambiguity the key resolves (``A10``)."""
    help: str = ""
    """One sentence for the set-up screen: what the option changes."""
    minimum: int = 0
    """Smallest integer accepted for ``int`` and ``int_or_choice`` keys."""
    parse: Callable[[str], OptionValue] | None = field(default=None, compare=False)
    """For ``custom`` keys: turns the text into a value, raising ``ValueError`` with a reason."""

    def accepted(self) -> str:
        """Describe the accepted values, for error messages and ``--help``."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "int":
            return f"an integer >= {self.minimum}"
        if self.kind == "int_or_choice":
            return " or ".join(self.choices) + f" or an integer >= {self.minimum}"
        if self.kind == "custom":
            return self.help or "see RULES.md"
        return ", ".join(self.choices)

    def convert(self, raw: OptionValue) -> OptionValue:
        """Return the value ``raw`` (text or already typed) stands for.

        :raises ConfigError: naming the key and the accepted values.
        """
        try:
            return self._convert(raw)
        except (ValueError, TypeError) as exc:
            detail = f" ({exc})" if str(exc) else ""
            raise ConfigError(
                f"option {self.key}: {raw!r} is not accepted{detail}; accepted: {self.accepted()}"
            ) from None

    def _convert(self, raw: OptionValue) -> OptionValue:
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("true", "yes", "on", "1"):
                return True
            if text in ("false", "no", "off", "0"):
                return False
            raise ValueError("")
        if self.kind in ("int", "int_or_choice"):
            if isinstance(raw, str) and raw.strip() in self.choices:
                return raw.strip()
            if isinstance(raw, bool):
                raise ValueError("")
            number = int(str(raw).strip()) if not isinstance(raw, int) else raw
            if number < self.minimum:
                raise ValueError(f"below {self.minimum}")
            return number
        if self.kind == "custom":
            if isinstance(raw, str) and raw.strip() in self.choices:
                return raw.strip()
            assert self.parse is not None, f"custom option {self.key} needs a parser"
            return self.parse(raw) if isinstance(raw, str) else self.parse(_as_text(raw))
        text = str(raw).strip()
        if text not in self.choices:
            raise ValueError("")
        return text


def _as_text(value: OptionValue) -> str:
    """Render a typed value back to the text its parser accepts."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def resolve_options(
    specs: tuple[OptionSpec, ...], given: Mapping[str, OptionValue] | None, game: str
) -> dict[str, OptionValue]:
    """Merge ``given`` over the defaults of ``specs``, converting and validating each value.

    :raises ConfigError: for a key the game does not have (listing those it has) or a bad value.
    """
    by_key = {spec.key: spec for spec in specs}
    values: dict[str, OptionValue] = {spec.key: spec.default for spec in specs}
    for key, raw in (given or {}).items():
        spec = by_key.get(key)
        if spec is None:
            known = ", ".join(sorted(by_key)) or "none"
            raise ConfigError(f"{game} has no option {key!r}; its options are: {known}")
        values[key] = spec.convert(raw)
    return values


def option_to_json(value: OptionValue) -> OptionValue:
    """A JSON-friendly form of an option value (tuples become lists)."""
    if isinstance(value, tuple):
        return [option_to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): option_to_json(v) for k, v in value.items()}
    return value


def parse_option_assignments(pairs: list[str]) -> dict[str, str]:
    """Parse ``key=value`` strings from the command line.

    :raises ConfigError: for an item without ``=``.
    """
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"option {pair!r} must be written key=value, e.g. sp.penalty_tie=none")
        options[key.strip()] = value.strip()
    return options


INVALID_THROW = OptionSpec(
    "g.invalid_throw", "rethrow_all", ("rethrow_all", "rethrow_offending"), rule="A1",
    help="After an invalid throw (off the Theatre, on edge, cocked) throw everything again, or only the offending objects.",
)
"""``g.invalid_throw`` (RULES.md A1), shared by every game with throws or rolls."""

"""The configuration keys of Seven Pennies (RULES.md §7.2: every ``g.``, ``sp.``, ``spt.`` and
``spd.`` key), each with the rule or ambiguity it resolves and one sentence of help.

A helper of :mod:`referee.games.seven_pennies`; it registers nothing.
"""

from __future__ import annotations

from referee.options import INVALID_THROW, OptionSpec

SEVEN_PENNIES_OPTIONS: tuple[OptionSpec, ...] = (
    INVALID_THROW,
    OptionSpec(
        "sp.coin_count", "3+2P", ("3+2P",), kind="int_or_choice", minimum=1, rule="A2",
        help="How many pennies (or dice) are in play: three plus two per player, or a house number.",
    ),
    OptionSpec(
        "sp.penalty_includes_canceller", True, kind="bool", rule="A9",
        help="Whether the canceller can be the player who pays the penalty of their own Cancel.",
    ),
    OptionSpec(
        "sp.penalty_tie", "all_pay", ("all_pay", "canceller_chooses", "none", "nearest_left"), rule="A10",
        help="Who pays when several players tie for the most pennies of the opposite facing.",
    ),
    OptionSpec(
        "sp.next_round_starter", "left_of_last",
        ("left_of_last", "same_first_player", "round_ender", "left_of_previous_starter"), rule="A15",
        help="Who throws first in the next round.",
    ),
    OptionSpec(
        "sp.win_tie", "co_winners", ("co_winners", "play_on"), rule="A16",
        help="Players tied for the highest score at the end share the win, or play more rounds until one leads.",
    ),
    OptionSpec(
        "sp.max_turns_per_round", "off", ("off",), kind="int_or_choice", minimum=1, rule="A17",
        help="Warn (only warn) when a round has lasted this many turns.",
    ),
    OptionSpec(
        "spt.enabled", False, kind="bool", rule="SPT",
        help="Play T.K.O.: three nickels each, lost on booth-outs and cancel-outs, last player with nickels wins.",
    ),
    OptionSpec(
        "spt.self_cancel_costs", False, kind="bool", rule="A19",
        help="Under T.K.O., whether a player emptied by their own Cancel loses a nickel.",
    ),
    OptionSpec(
        "spt.gain_rule", "all_thrown", ("all_thrown", "any_gather"), rule="A21",
        help="Under T.K.O., a nickel is gained by gathering every penny thrown, or by any Gather (house play).",
    ),
    OptionSpec(
        "spt.zero_nickels", "eliminate", ("eliminate", "continue"), rule="A22",
        help="Under T.K.O., a player without nickels is out of the game, or keeps playing.",
    ),
    OptionSpec(
        "spd.enabled", False, kind="bool", rule="SPD",
        help="Play with dice instead of pennies: pairs summing to faces + 1 go to the Balcony.",
    ),
    OptionSpec(
        "spd.faces", 6, kind="int", minimum=2, rule="A25",
        help="The number of faces of every die in the dice variant (d6, d8, ...).",
    ),
    OptionSpec(
        "spd.zero_face_as", 10, kind="int", minimum=1, rule="A25",
        help="A die face printed 0 (a d10 numbered 0-9) is read as this number.",
    ),
    OptionSpec(
        "spd.cancel_amount", "all", ("all", "choose"), rule="A28",
        help="A dice Cancel moves every die showing the number, or as many of them as the canceller chooses.",
    ),
    OptionSpec(
        "spd.leftovers", "to_balcony", ("to_balcony", "stay_in_theatre"), rule="A29",
        help="Dice left in the Theatre after a Gather or Cancel go to the Balcony, or stay to be thrown again.",
    ),
    OptionSpec(
        "spd.self_designation", "allowed", ("allowed", "forbidden"), rule="A30",
        help="Whether the canceller may designate themselves to pay a dice penalty.",
    ),
    OptionSpec(
        "spd.opt_forced_self_cancel", False, kind="bool", rule="A32",
        help="Optional rule: a player whose dice pair with dice in the Theatre must cancel them and pay.",
    ),
    OptionSpec(
        "spd.opt_extra_turn", False, kind="bool", rule="A33",
        help="Optional rule: a player who chooses to Gather takes another turn.",
    ),
    OptionSpec(
        "spd.extra_turn_across_rounds", True, kind="bool", rule="A33",
        help="Whether an extra turn earned by the Gather that ends a round makes that player start the next round.",
    ),
    OptionSpec(
        "spd.optional_rules_for_pennies", False, kind="bool", rule="A34",
        help="Whether the dice variant's optional rules also apply when playing with pennies.",
    ),
)
"""Every Seven Pennies key of RULES.md §7.2, default first."""

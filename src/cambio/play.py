"""Play Cambio in the terminal: you in seat 0 against bots (MemoryBots unless you choose).

``cambio play`` (or :func:`play`) deals a round, shows your opening peek once, then
asks for short typed commands on your decisions (``help`` lists them) and prints every
other move as you see it: public information only. You play from memory, as at a
real table: a card you look at stays on screen until you press Enter, then lies face
down again, with only its position number showing (``--aids``, learner's aids, shows
the cards you know instead). The end
shows every card, its value, the totals, why the round ended and who won.

The game reads lines from standard input, so a script can play it::

    printf 'd\\nx\\nk\\nc\\n' | cambio play --seed 3

End of input stops the game cleanly, with a message. Commands:

======================  ================================================
``d``                   draw from the stock
``t``                   take the top discard (it must replace a card)
``c``                   call Cambio
``r POS``               put the card in your hand at your position POS
``x``                   discard the drawn card (its power, if any, follows)
``e POS POS ...``       exchange equal cards of yours for the drawn card
``p POS``               peek at your position POS (``p PLAYER POS``: anyone's)
``s PLAYER POS PLAYER POS``  swap two cards (``s POS PLAYER POS``: yours first)
``k``                   skip the power, or end your turn without calling
``n POS``               snap your card at POS (``n PLAYER POS``: anyone's)
``g POS``               give your card at POS after snapping another's
``o POS ...``           choose the positions of your opening peek
``l``                   look again at your opening positions (re-peek)
``b`` / ``h``           the board / the move history
``score``               the table, the round, every player's totals
``hint``                the best moves now, estimated (tables with ``--hints``)
``help`` / ``q``        these commands / quit
======================  ================================================
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import attrs

from .actions import Action, ActionKind
from .bots import BOT_NAMES, Bot, BotError, MemoryBot, derive_seed, make_bot
from .cards import JOKER, Card
from .errors import RuleSetError, SaveError
from .events import Event, EventKind
from .knowledge import seen_by
from .launch import launch_command, saves_folder
from .loading import ruleset_to_dict
from .match import Match, MatchEventKind
from .reasons import caller_reason, starter_reason
from .rules import RuleSet
from .scoring import RoundResult
from .views import PlayerView

__all__ = [
    "SAVE_FORMAT",
    "SNAP_PROMPTS",
    "InputEnded",
    "Leave",
    "Terminal",
    "TerminalPlayer",
    "is_info",
    "add_arguments",
    "board_text",
    "end_text",
    "load_save",
    "narrate",
    "opponent_names",
    "opponents_seen",
    "play",
    "run_command",
]

OPPONENT_NAMES = ("Robin", "Alex", "Sam", "Kit", "Noor", "Jo", "Ari")
"""Names of the computer players, seat 1 onwards."""

_WINDOW_EVENTS = frozenset(
    {EventKind.REPLACE, EventKind.DISCARD, EventKind.EXCHANGE, EventKind.FAILED_EXCHANGE}
)


_PRIVATE_LOOKS = frozenset({EventKind.PEEK, EventKind.RE_PEEK, EventKind.SWAP})
"""Your own looks at face-down cards, kept on screen until you hide them."""

_NOT_SCRIPTED = object()
"""Returned by :meth:`TerminalPlayer._scripted` when no recorded answer is left."""


class Leave(Exception):
    """The person left: typed ``q`` (:class:`_Quit`) or the input ran out."""


class _Quit(Leave):
    """The person typed ``q``."""


class _EndOfInput(Leave):
    """Standard input ran out."""


InputEnded = _EndOfInput
"""Raised by :meth:`Terminal.ask` when standard input runs out (a :class:`Leave`)."""


class Terminal:
    """Line input and output, with cards drawn in what the output can show."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.interactive = _isatty(stdin) and _isatty(stdout)
        self.colour = self.interactive and "NO_COLOR" not in os.environ
        self.quiet = False
        """While a saved game is replayed nothing is printed."""
        encoding = getattr(stdout, "encoding", None) or "utf-8"
        try:
            "\u2660\u2665\u2666\u2663\u2500".encode(encoding)
            self.unicode = True
        except (UnicodeEncodeError, LookupError):
            self.unicode = False

    def say(self, text: str = "") -> None:
        if self.quiet:
            return
        try:
            self.stdout.write(text + "\n")
        except UnicodeEncodeError:
            encoding = getattr(self.stdout, "encoding", None) or "ascii"
            self.stdout.write(text.encode(encoding, "replace").decode(encoding) + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        """One line of input (without its newline); :class:`_EndOfInput` at the end."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.stdout.write("\n")
            raise _EndOfInput
        line = line.rstrip("\r\n")
        if not _isatty(self.stdin):
            self.stdout.write(line + "\n")  # echo scripted input so transcripts read well
        return line

    def clear(self) -> None:
        if self.interactive:
            self.stdout.write("\033[2J\033[H")
            self.stdout.flush()

    def card(self, card: Card | None) -> str:
        if card is None:
            return "??"
        if card.rank == JOKER:
            return "Jkr"
        return card.pretty() if self.unicode else str(card)

    @property
    def rule(self) -> str:
        return "\u2500" if self.unicode else "-"


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class TerminalPlayer:
    """A person at the terminal, playing through the :class:`~cambio.bots.Bot` protocol.

    Like every bot it sees only its own view and the legal actions; it prints them and
    turns typed commands into actions. ``names`` names every seat (``names[seat]`` is
    "you"). With ``show_known`` false (the default: you play from memory) the grids hide
    every face-down card, even those you have seen, and the move history names only the
    cards that lie face up now; with it true (learner's aids) the grids show every card
    you know.
    """

    def __init__(
        self,
        terminal: Terminal,
        rules: RuleSet,
        names: Sequence[str],
        *,
        show_known: bool = False,
        hints: bool = False,
    ) -> None:
        self.term = terminal
        self.rules = rules
        self.names = list(names)
        self.show_known = show_known
        self.hints = hints
        """Whether the ``hint`` command estimates the moves (a table option)."""
        self._hint_seed = 0
        self.seat = 0
        self.answers: list[dict[str, Any] | None] = []
        """Every answer given so far (an action record, or None for a snap let go)."""
        self.script: list[dict[str, Any] | None] = []
        """Recorded answers still to give (a saved game being replayed)."""
        self.scores: Callable[[], str] = lambda: "No scores yet."
        """The text of the ``score`` command: the table, the round and the totals."""

    # --- the Bot protocol
    def reset(self, seat: int, rules: RuleSet, seed: int | None) -> None:
        self.seat = seat
        self.rules = rules
        self._hint_seed = 0 if seed is None else seed

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        scripted = self._scripted(view, legal)
        if scripted is not _NOT_SCRIPTED:
            return scripted  # type: ignore[return-value]
        if view.phase == "turn":
            self.term.say()
            self.show_board(view)
        self.term.say(self._situation(view, legal))
        while True:
            line = self.term.ask("> ")
            action = self._interpret(line, view, legal)
            if action is not None:
                self.answers.append(action.to_dict())
                return action

    def react(self, view: PlayerView, snaps: Sequence[Action]) -> Action | None:
        """Offer a snap of the top discard; ``None`` (Enter) lets it go.

        The game calls this once per discard, before any bot's snap is applied, and only
        when ``--snap`` says you should be asked.
        """
        scripted = self._scripted(view, snaps, allow_none=True)
        if scripted is not _NOT_SCRIPTED:
            return scripted  # type: ignore[return-value]
        top = view.top_discard
        self.term.say(
            f"{self.term.card(top)} is on the discard pile. Snap? "
            f"{_snap_hint(snaps, self.seat)}, or press Enter to let it go."
        )
        while True:
            line = self.term.ask("snap? ")
            words = line.split()
            if not words or words[0].lower() in ("-", ".", "k", "no"):
                self.answers.append(None)
                return None
            if words[0].lower() not in ("n", "snap") and not _is_info(words[0]):
                self.term.say("Only a snap (n ...) now, or Enter to let it go.")
                continue
            action = self._interpret(line, view, snaps)
            if action is not None:
                self.answers.append(action.to_dict())
                return action

    # --- replaying a saved game
    def _scripted(
        self, view: PlayerView, legal: Sequence[Action], *, allow_none: bool = False
    ) -> object:
        """The next recorded answer while a saved game is replayed, else a marker."""
        if not self.script:
            self.finish_script(view)
            return _NOT_SCRIPTED
        raw = self.script.pop(0)
        index = len(self.answers)
        if raw is None:
            if not allow_none:
                raise SaveError(f"$.answers[{index}]", "a decision cannot be empty")
            self.answers.append(None)
            return None
        action = Action.from_dict(raw)
        if action not in legal:
            raise SaveError(f"$.answers[{index}]", f"{action} is not possible at that point")
        self.answers.append(raw)
        return action

    def finish_script(self, view: PlayerView | None) -> None:
        """The saved answers are used up: show the game again from here (``view``)."""
        if self.term.quiet:
            self.term.quiet = False
            self.term.say(self.term.rule * 60)
            self.term.say("The saved game is restored; you continue where you left off.")
            self.term.say(self.scores())
            if view is not None and view.phase != "turn":
                self.show_board(view)  # a turn shows the board anyway

    # --- reading commands
    def interpret(self, line: str, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """The legal action a typed line asks for; ``None`` after printing what the line
        asked for instead (the board, the history, help) or why it is not possible.
        ``q`` raises the exception that leaves the table."""
        return self._interpret(line, view, legal)

    def situation(self, view: PlayerView, legal: Sequence[Action]) -> str:
        """What you hold and the commands you can type now, as one line."""
        return self._situation(view, legal)

    def _interpret(self, line: str, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """The action a typed line asks for, if legal; otherwise explain and return None."""
        words = line.split()
        if not words:
            self.term.say(self._situation(view, legal))
            return None
        command = words[0].lower()
        if command in ("q", "quit", "exit"):
            raise _Quit
        if command in ("help", "?"):
            self.term.say(self._help())
            return None
        if command in ("b", "board"):
            self.show_board(view)
            return None
        if command in ("h", "history"):
            self._show_history(view)
            return None
        if command in ("score", "scores", "totals"):
            self.term.say(self.scores())
            return None
        if command in ("hint", "hints"):
            self.term.say(self._hint(view, legal))
            return None
        try:
            numbers = [int(w) for w in words[1:]]
        except ValueError:
            self.term.say(f"{line.strip()!r}: positions and players are numbers. Type help.")
            return None
        try:
            candidates = self._parse(command, numbers, legal)
        except ValueError as error:
            self.term.say(str(error))
            return None
        for action in candidates:
            if action in legal:
                return action
        if not candidates:
            self.term.say(f"Unknown command {words[0]!r}. Type help for the commands.")
            return None
        self.term.say(self._why_not(candidates[0], view, legal))
        return None

    def _parse(self, command: str, numbers: list[int], legal: Sequence[Action]) -> list[Action]:
        me = self.seat

        def none(name: str) -> None:
            if numbers:
                raise ValueError(f"{name} takes no numbers.")

        def slots(what: str) -> list[tuple[int, int]]:
            if len(numbers) == 1:
                return [(me, numbers[0])]
            if numbers and len(numbers) % 2 == 0:
                return [(numbers[i], numbers[i + 1]) for i in range(0, len(numbers), 2)]
            raise ValueError(f"{what}: give POS (yours) or PLAYER POS, e.g. {command} 1 2.")

        if command in ("d", "draw"):
            none("draw")
            return [Action.draw(me)]
        if command in ("t", "take"):
            none("take")
            return [Action.take(me)]
        if command in ("c", "call", "cambio"):
            none("call")
            return [Action.call(me)]
        if command in ("x", "discard"):
            none("discard")
            return [Action.discard(me)]
        if command in ("k", "skip", "pass", "end"):
            none("skip")
            return [Action.skip(me), Action.pass_(me)]
        if command in ("l", "look", "repeek", "re-peek"):
            none("re-peek")
            return [Action.re_peek(me)]
        if command in ("r", "replace", "put"):
            if len(numbers) != 1:
                raise ValueError("replace: give one of your positions, e.g. r 3.")
            return [Action.replace(me, numbers[0])]
        if command in ("g", "give"):
            if len(numbers) != 1:
                raise ValueError("give: give one of your positions, e.g. g 2.")
            return [Action.give(me, numbers[0])]
        if command in ("e", "exchange"):
            if len(numbers) < 2:
                raise ValueError("exchange: give two or more of your positions, e.g. e 1 3.")
            return [Action.exchange(me, *numbers)]
        if command in ("o", "open", "opening"):
            if not numbers:
                raise ValueError("opening peek: give the positions to look at, e.g. o 3.")
            return [Action.opening_peek(me, *numbers)]
        if command in ("p", "peek"):
            (slot,) = slots("peek") if len(numbers) <= 2 else [(-1, -1)]
            if slot == (-1, -1):
                raise ValueError("peek: give POS (yours) or PLAYER POS, e.g. p 1 2.")
            return [Action.peek(me, slot)]
        if command in ("s", "swap"):
            if len(numbers) == 3:
                first, second = (me, numbers[0]), (numbers[1], numbers[2])
            elif len(numbers) == 4:
                first, second = (numbers[0], numbers[1]), (numbers[2], numbers[3])
            else:
                raise ValueError("swap: give PLAYER POS PLAYER POS, e.g. s 0 3 1 2.")
            return [Action.swap(me, first, second)]
        if command in ("n", "snap"):
            return [Action.snap(me, *slots("snap"))]
        return []

    def _hint(self, view: PlayerView, legal: Sequence[Action]) -> str:
        """The ``hint`` command's text: the best moves from this view, or why none."""
        if not self.hints:
            return "Hints are off for this table (a game started with --hints has them)."
        from .play_hints import hint_for

        me = self.seat

        def command(action: Action | None) -> str:
            if action is None:
                return "Enter (let it go)"
            short = _SHORT.get(action.kind)
            return short if short is not None else _command_text(action, me)

        seed = derive_seed(self._hint_seed, "hint", len(self.answers))
        return hint_for(view, self.rules, seed, command, legal)

    def _why_not(self, action: Action, view: PlayerView, legal: Sequence[Action]) -> str:
        kinds = {a.kind for a in legal}
        if action.kind not in kinds:
            verb = _VERBS.get(action.kind, action.kind.value)
            return f"You cannot {verb} now. {self._options(view, legal)}"
        targets = [a for a in legal if a.kind is action.kind]
        places = ", ".join(_command_text(a, self.seat) for a in targets[:_EXAMPLES])
        more = f" (and {len(targets) - _EXAMPLES} more)" if len(targets) > _EXAMPLES else ""
        return f"Not those positions. For example: {places}{more}."

    # --- what is shown
    def show_board(self, view: PlayerView) -> None:
        self.term.say(
            board_text(
                view, self.names, self.rules, self.term.card, self.show_known, self.term.colour
            )
        )

    def _show_history(self, view: PlayerView) -> None:
        card = self.term.card if self.show_known else _face_up_only(view, self.term.card)
        lines = [narrate(e, self.names, self.seat, card) for e in view.history]
        shown = [line for line in lines if line]
        if self.show_known:
            self.term.say("Move history (as you saw it):")
        else:
            self.term.say("Move history (as you saw it; only cards face up now are named):")
        for line in shown:
            self.term.say(f"  {line}")

    def _situation(self, view: PlayerView, legal: Sequence[Action]) -> str:
        card = self.term.card
        phase = view.phase
        if phase == "drawn":
            head = f"You hold {card(view.holding)} (drawn)."
        elif phase == "taken":
            head = f"You hold {card(view.holding)} from the discard pile: place it."
        elif phase == "power":
            head = f"Power: {view.power}."
            if view.holding is not None:
                head += f" (You hold {card(view.holding)}.)"
        elif phase == "give":
            head = "You snapped another player's card: give one of yours in its place."
        elif phase == "opening":
            head = "Choose which positions to look at for your opening peek."
        elif phase == "end_of_turn":
            head = "End of your turn."
        else:
            return self._options(view, legal)
        return f"{head} {self._options(view, legal)}"

    def _options(self, view: PlayerView, legal: Sequence[Action]) -> str:
        card = self.term.card
        me = self.seat
        parts: list[str] = []
        kinds = {a.kind for a in legal}
        top = view.top_discard

        def own_positions(kind: ActionKind) -> str:
            return " ".join(str(a.positions[0][1]) for a in legal if a.kind is kind)

        for kind in _ORDER:
            if kind not in kinds:
                continue
            if kind is ActionKind.DRAW:
                parts.append(f"d = draw ({view.stock_size} in the stock)")
            elif kind is ActionKind.TAKE:
                parts.append(f"t = take {card(top)}")
            elif kind is ActionKind.CALL:
                parts.append("c = call Cambio")
            elif kind is ActionKind.RE_PEEK:
                parts.append("l = look again at your opening cards")
            elif kind is ActionKind.REPLACE:
                parts.append(f"r POS = put it at POS ({own_positions(kind)})")
            elif kind is ActionKind.DISCARD:
                parts.append("x = discard it" + _power_note(view, self.rules))
            elif kind is ActionKind.EXCHANGE:
                parts.append("e POS POS.. = exchange equal cards")
            elif kind is ActionKind.PEEK:
                step = view.power_step
                scope = step.scope if step is not None else "any"
                if scope == "own":
                    parts.append("p POS = peek at your card")
                else:
                    parts.append("p PLAYER POS = peek")
            elif kind is ActionKind.SWAP:
                parts.append("s PLAYER POS PLAYER POS = swap")
            elif kind is ActionKind.SKIP:
                parts.append("k = skip")
            elif kind is ActionKind.PASS:
                parts.append("k = end your turn")
            elif kind is ActionKind.GIVE:
                parts.append(f"g POS = give ({own_positions(kind)})")
            elif kind is ActionKind.OPENING_PEEK:
                choices = " / ".join(
                    "o " + " ".join(str(p) for _, p in a.positions) for a in legal if a.kind is kind
                )
                parts.append(choices)
            elif kind is ActionKind.SNAP:
                parts.append(_snap_hint([a for a in legal if a.kind is kind], me))
        return "Now: " + ", ".join(parts) + "."

    def _help(self) -> str:
        from .render import value_summary

        lines = [
            f"Commands (positions are numbered from 1, row by row; you are player {self.seat}):",
            "  d             draw from the stock",
            "  t             take the top discard (it must replace one of your cards)",
            "  c             call Cambio (the others get their final turns)",
            "  r POS         put the card you hold at your position POS",
            "  x             discard the drawn card (a power card's power follows)",
            "  e POS POS ..  exchange your equal cards for the drawn card",
            "  p POS         peek at your position POS;  p PLAYER POS  at anyone's",
            "  s P POS P POS swap two cards, e.g. s 0 3 1 2;  s POS P POS  yours first",
            "  k             skip the rest of a power, or end your turn without calling",
            "  n POS         snap your card at POS;  n PLAYER POS  anyone's",
            "  g POS         give your card at POS after snapping another player's",
            "  o POS ..      choose your opening peek positions",
            "  l             look again at your opening positions (re-peek tables)",
            "  b  h          show the board, the move history",
            "  score         the table, the round and every player's totals",
            "  hint          the best moves now, estimated"
            + ("" if self.hints else " (off at this table: --hints)"),
            "  help  q       this help, quit",
            f"Card values at this table: {value_summary(self.rules)}. Lowest total wins.",
        ]
        return "\n".join(lines)


_ORDER = (
    ActionKind.OPENING_PEEK,
    ActionKind.RE_PEEK,
    ActionKind.DRAW,
    ActionKind.TAKE,
    ActionKind.CALL,
    ActionKind.REPLACE,
    ActionKind.EXCHANGE,
    ActionKind.DISCARD,
    ActionKind.PEEK,
    ActionKind.SWAP,
    ActionKind.GIVE,
    ActionKind.SKIP,
    ActionKind.PASS,
    ActionKind.SNAP,
)

_VERBS = {
    ActionKind.DRAW: "draw",
    ActionKind.TAKE: "take the discard",
    ActionKind.CALL: "call Cambio",
    ActionKind.PASS: "end your turn",
    ActionKind.RE_PEEK: "look again at your opening cards",
    ActionKind.REPLACE: "place a card",
    ActionKind.EXCHANGE: "exchange",
    ActionKind.DISCARD: "discard",
    ActionKind.PEEK: "peek",
    ActionKind.SWAP: "swap",
    ActionKind.SKIP: "skip",
    ActionKind.SNAP: "snap",
    ActionKind.GIVE: "give a card",
    ActionKind.OPENING_PEEK: "choose an opening peek",
}


def is_info(word: str) -> bool:
    """Whether a typed command only shows something (the board, help, ...) or leaves."""
    return _is_info(word)


def _is_info(word: str) -> bool:
    return word.lower() in (
        *("b", "board", "h", "history", "help", "?", "q", "quit", "exit"),
        *("score", "scores", "totals", "hint", "hints"),
    )


_EXAMPLES = 4
"""How many possible moves an error about positions lists at most."""

_LETTERS = {
    ActionKind.REPLACE: "r",
    ActionKind.GIVE: "g",
    ActionKind.EXCHANGE: "e",
    ActionKind.OPENING_PEEK: "o",
    ActionKind.PEEK: "p",
    ActionKind.SWAP: "s",
    ActionKind.SNAP: "n",
}


_SHORT = {
    ActionKind.DRAW: "d",
    ActionKind.TAKE: "t",
    ActionKind.CALL: "c",
    ActionKind.DISCARD: "x",
    ActionKind.SKIP: "k",
    ActionKind.PASS: "k",
    ActionKind.RE_PEEK: "l",
}
"""The command of each action kind that takes no position."""


def _command_text(action: Action, me: int) -> str:
    """The command to type for ``action`` (own single positions written short)."""
    letter = _LETTERS.get(action.kind, action.kind.value)
    own = all(owner == me for owner, _ in action.positions)
    if own and (len(action.positions) == 1 or action.kind is not ActionKind.SWAP):
        if action.kind is ActionKind.SNAP and len(action.positions) > 1:
            return f"{letter} " + " ".join(f"{o} {p}" for o, p in action.positions)
        return f"{letter} " + " ".join(str(p) for _, p in action.positions)
    return f"{letter} " + " ".join(f"{o} {p}" for o, p in action.positions)


def _snap_hint(snaps: Sequence[Action], me: int) -> str:
    others = any(o != me for a in snaps for o, _ in a.positions)
    return "n POS = snap your matching card" + (" (n PLAYER POS: anyone's)" if others else "")


def _power_note(view: PlayerView, rules: RuleSet) -> str:
    held = view.holding
    if held is None or not view.holding_from_stock or rules.powers.timing != "discard":
        return ""
    power = rules.powers.power_of(held)
    return (
        f" and use its power: {power.name}"
        if power is not None and power.name
        else (" and use its power" if power is not None else "")
    )


# ---------------------------------------------------------------------------------------
# Text for boards, events and the end


def _face_up_only(
    view: PlayerView, card: Callable[[Card | None], str]
) -> Callable[[Card | None], str]:
    """``card``, but naming only the cards that lie face up now (the top discard, the
    card in your hand); any other card is written "a card"."""
    visible = {c for c in (view.top_discard, view.holding) if c is not None}

    def shown(c: Card | None) -> str:
        return card(c) if c is not None and c in visible else "a card"

    return shown


def _who(seat: int, names: Sequence[str], me: int, *, subject: bool = True) -> str:
    if seat == me:
        return "You" if subject else "you"
    return names[seat]


def _whose(owner: int, names: Sequence[str], me: int) -> str:
    return "your" if owner == me else f"{names[owner]}'s"


def _place(slot: tuple[int, int], names: Sequence[str], me: int, actor: int = -1) -> str:
    owner, pos = slot
    if owner == actor and actor != me:
        return f"their [{pos}]"
    return f"{_whose(owner, names, me)} [{pos}]"


def board_text(
    view: PlayerView,
    names: Sequence[str],
    rules: RuleSet,
    card: Callable[[Card | None], str],
    show_known: bool = True,
    colour: bool = False,
) -> str:
    """Every grid as rows of positions, with the cards ``view`` knows (``??`` otherwise).

    Under your grid a line says which of your positions each opponent has seen (from
    public events only, see :func:`opponents_seen`). With ``colour`` the cards you know
    are drawn in colour (ANSI escapes, for a terminal).
    """
    me = view.player
    seats = [p for p in range(view.players) if view.present[p] or p == me]
    order = [p for p in seats if p != me] + [me]
    width = max(len(_label(p, names, me, view)) for p in order) + 2
    lines = []
    for p in order:
        label = _label(p, names, me, view).ljust(width)
        rows = _grid_rows(view, p, rules, card, show_known, colour and p == me)
        for k, row in enumerate(rows):
            lines.append((label if k == 0 else " " * width) + row)
    seen = opponents_seen(view)
    if seen:
        marks = "; ".join(
            f"[{pos}] " + ", ".join(names[o] for o in who) for pos, who in sorted(seen.items())
        )
        lines.append(" " * width + f"seen by others: {marks}")
    top = view.top_discard
    pile = (
        f"Discard: {card(top)} ({_count(len(view.discard))})" if top is not None else "Discard: -"
    )
    status = f"{pile}  Stock: {_count(view.stock_size)}"
    if view.caller is not None:
        status += f"  {_who(view.caller, names, me)} called Cambio"
    lines.append(status)
    return "\n".join(lines)


def opponents_seen(view: PlayerView) -> dict[int, tuple[int, ...]]:
    """Which other players have seen the card now at each of the viewer's positions.

    Worked out from the public part of the viewer's history alone (see
    :mod:`cambio.knowledge`): who peeked where, who looked at the cards of a seen swap,
    which cards were taken face up or shown by a failed exchange or a wrong snap, and how
    cards moved since. Returns ``{position: (players, ...)}`` for the positions seen by at
    least one other player.
    """
    me = view.player
    width = max((len(row) for row in view.present), default=0)
    masks = seen_by(view.history, players=view.players, positions=width)
    out: dict[int, tuple[int, ...]] = {}
    for i, mask in enumerate(masks[me]):
        others = tuple(o for o in range(view.players) if o != me and mask >> o & 1)
        if others and i < len(view.present[me]) and view.present[me][i]:
            out[i + 1] = others
    return out


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _label(p: int, names: Sequence[str], me: int, view: PlayerView) -> str:
    name = "You" if p == me else names[p]
    return f"P{p} {name}" + (" *" if view.current == p and view.phase != "over" else "")


def _grid_rows(
    view: PlayerView,
    owner: int,
    rules: RuleSet,
    card: Callable[[Card | None], str],
    show_known: bool,
    colour: bool = False,
) -> list[str]:
    present = view.present[owner]
    known = view.grids[owner]

    def cell(i: int) -> str:
        if not present[i]:
            text = "--"
        else:
            seen = known[i]
            text = card(seen if show_known else None)
            if colour and show_known and seen is not None:
                return f"[{i + 1}] \033[1;32m{text}\033[0m" + " " * max(0, 4 - len(text))
        return f"[{i + 1}] {text:<4}"

    rows = []
    i = 0
    for count in rules.grid.rows:
        rows.append(" ".join(cell(j) for j in range(i, min(i + count, len(present)))).rstrip())
        i += count
    extra = [j for j in range(view.grid_size, len(present)) if present[j]]
    if extra:
        rows.append("extra: " + " ".join(cell(j) for j in extra).rstrip())
    return rows


def narrate(event: Event, names: Sequence[str], me: int, card: Callable[[Card | None], str]) -> str:
    """One line for an event as player ``me`` saw it ('' for events not worth a line)."""
    kind = event.kind
    p = event.player
    who = _who(p, names, me) if p >= 0 else ""
    pos = event.positions
    cards = event.cards
    shown = [c for c in cards if c is not None]
    if kind == EventKind.DEAL:
        if not cards:  # a table whose deal turns no card face up
            return "The cards are dealt; the discard pile starts empty."
        return f"The cards are dealt; {card(cards[0])} starts the discard pile."
    if kind == EventKind.TURN:
        return f"{'Your' if p == me else names[p] + chr(39) + 's'} turn."
    if kind in (EventKind.OPENING_PEEK, EventKind.RE_PEEK):
        verb = "look" if p == me else "looks"
        again = " again" if kind == EventKind.RE_PEEK else ""
        where = ", ".join(str(q) for _, q in pos)
        if shown:
            seen = ", ".join(f"[{q}] {card(c)}" for (_, q), c in zip(pos, cards, strict=False))
            return f"{who} {verb}{again} at {_whose(p, names, me)} positions {where}: {seen}."
        return f"{who} {verb}{again} at {'their' if p != me else 'your'} positions {where}."
    if kind == EventKind.DRAW:
        if shown:  # the drawer's own draw, or anyone's on a table of open draws
            verb = "draw" if p == me else "draws"
            return f"{who} {verb} {card(shown[0])}."
        return f"{who} draws from the stock."
    if kind == EventKind.TAKE:
        return f"{who} {'take' if p == me else 'takes'} {card(cards[0])} from the discard pile."
    if kind == EventKind.REPLACE:
        verb = "put" if p == me else "puts"
        return (
            f"{who} {verb} the card at {_place(pos[0], names, me, p)}; out comes {card(cards[0])}."
        )
    if kind == EventKind.DISCARD:
        return f"{who} {'discard' if p == me else 'discards'} {card(cards[0])}."
    if kind == EventKind.EXCHANGE:
        where = ", ".join(f"[{q}]" for _, q in pos)
        out = " ".join(card(c) for c in cards)
        return f"{who} {'exchange' if p == me else 'exchanges'} {where} ({out}) for one card."
    if kind == EventKind.FAILED_EXCHANGE:
        out = " ".join(card(c) for c in cards)
        return f"{who} {'try' if p == me else 'tries'} an exchange that fails; face up: {out}."
    if kind == EventKind.POWER:
        source = f" of {card(cards[0])}" if shown else ""
        return f"{who} {'use' if p == me else 'uses'} the power{source}: {event.note}."
    if kind == EventKind.PEEK:
        target = _place(pos[0], names, me, p)
        if shown:
            return f"{who} {'peek' if p == me else 'peeks'} at {target}: {card(shown[0])}."
        return f"{who} peeks at {target}."
    if kind == EventKind.SWAP:
        a, b = pos
        first, second = _place(a, names, me, p), _place(b, names, me, p)
        text = f"{who} {'swap' if p == me else 'swaps'} {first} and {second}"
        if shown:
            return text + f" (seeing {card(cards[0])} and {card(cards[1])})."
        return text + " (blind)."
    if kind == EventKind.SKIP:
        return f"{who} {'skip' if p == me else 'skips'} the power."
    if kind == EventKind.SNAP:
        where = ", ".join(_place(s, names, me, p) for s in pos)
        return (
            f"{who} {'snap' if p == me else 'snaps'} {where}: {' '.join(card(c) for c in cards)}!"
        )
    if kind == EventKind.WRONG_SNAP:
        where = ", ".join(_place(s, names, me, p) for s in pos)
        what = " ".join(card(c) for c in cards) if shown else "a card you do not see"
        return f"{who} {'snap' if p == me else 'snaps'} {where} wrongly ({what}); it stays."
    if kind == EventKind.PENALTY:
        if not pos:
            return f"{who} should take a penalty card, but the stock is empty."
        where = _place(pos[0], names, me, p)
        return f"{who} {'take' if p == me else 'takes'} a penalty card at {where}."
    if kind == EventKind.GIVE:
        a, b = pos
        first, second = _place(a, names, me, p), _place(b, names, me, p)
        return f"{who} {'give' if p == me else 'gives'} {first} to {second}."
    if kind == EventKind.CALL:
        if event.note:
            return f"{who} {'have' if p == me else 'has'} no cards left: that counts as a call."
        return f"{who} {'call' if p == me else 'calls'} Cambio! The others get their final turns."
    if kind == EventKind.PASS:
        return f"{who} {'end' if p == me else 'ends'} the turn."
    if kind == EventKind.RECYCLE:
        return f"The discard pile is shuffled into a new stock ({event.note})."
    if kind == EventKind.END:
        return ""
    return str(event)


_REASONS = {
    "call": "{caller} called Cambio and the others took their final turns",
    "stock": "the stock ran out",
    "empty-grid": "{winner} emptied a grid by snapping",
    "turn-cap": "the turn limit was reached",
}


def end_text(
    result: RoundResult, names: Sequence[str], me: int, card: Callable[[Card | None], str]
) -> str:
    """The end screen: every card and value, totals, scores, the reason and the winner."""
    caller = "nobody" if result.caller is None else _who(result.caller, names, me, subject=False)
    winner = _who(result.winners[0], names, me, subject=False) if result.winners else "nobody"
    reason = _REASONS.get(result.reason, result.reason).format(caller=caller, winner=winner)
    lines = [f"The round is over: {reason}."]
    width = max(len("P0 You"), *(len(f"P{p} {names[p]}") for p in range(len(names))))
    show_scores = result.scores != result.totals
    for p, hand in enumerate(result.hands):
        label = f"P{p} {'You' if p == me else names[p]}".ljust(width)
        cells = "  ".join(f"[{h.position}] {card(h.card)} {h.value:>3}" for h in hand)
        tail = f"total {result.totals[p]:>3}"
        if show_scores:
            tail += f", score {result.scores[p]:>3}"
        if result.caller == p:
            tail += " (caller)"
        if p in result.winners:
            tail += " *"
        lines.append(f"{label}  {cells}   {tail}")
    lines.append(_winner_line(result, names, me))
    return "\n".join(lines)


def _winner_line(result: RoundResult, names: Sequence[str], me: int) -> str:
    winners = list(result.winners)
    if not winners:
        return "Nobody wins."
    total = result.totals[winners[0]]
    if len(winners) == 1:
        if winners[0] == me:
            return f"You win with {total}!"
        return f"{names[winners[0]]} wins with {total}."
    people = [("you" if w == me else names[w]) for w in winners]
    text = ", ".join(people[:-1]) + f" and {people[-1]}"
    return f"{text[0].upper()}{text[1:]} share the win."


# The game


SAVE_FORMAT = "cambio-play/1"
"""The ``format`` of a file written when you leave a game (``--resume`` reads it)."""

SNAP_PROMPTS = ("ask", "known", "never")
"""When the game stops to offer you a snap (``--snap``): ``ask`` whenever you may snap,
``known`` only when you know a card that matches the top discard, ``never`` not at all
(you can still snap with ``n`` when it is your decision)."""

_MATCH_KINDS = frozenset(
    {
        MatchEventKind.HIGH_CARD,
        MatchEventKind.DEALER,
        MatchEventKind.ROUND_START,
        MatchEventKind.ROUND_END,
        MatchEventKind.HALVED,
        MatchEventKind.OUT,
        MatchEventKind.TIE,
        MatchEventKind.MATCH_END,
    }
)


@attrs.frozen
class _Settings:
    """Everything that fixes a game besides your answers: what a save records."""

    rules: RuleSet
    players: int
    seed: int
    whole_match: bool
    snap: str
    show_known: bool
    opponents: tuple[str, ...] = ()
    hints: bool = False
    """Whether the ``hint`` command estimates the moves (``--hints``)."""
    """The bot of each other seat by name (:data:`~cambio.bots.BOT_NAMES`), seat 1 first;
    empty: MemoryBots."""
    finished: bool = False
    """Whether the saved game was played to its end (resuming it shows the result)."""


def _opponent(name: str) -> Bot:
    """A fresh bot for an opponent's seat (the module's MemoryBot for ``memory``)."""
    return MemoryBot() if name == "memory" else make_bot(name)


def opponent_names(opponents: str | Sequence[str] | None, players: int) -> tuple[str, ...]:
    """The bot name of each of the ``players - 1`` other seats, from one name for all or
    one per seat (a comma-separated string or a sequence). Raises ``ValueError``.

    >>> opponent_names("search", 3)
    ('search', 'search')
    >>> opponent_names("memory, search", 3)
    ('memory', 'search')
    """
    if opponents is None:
        return ("memory",) * (players - 1)
    parts = opponents.split(",") if isinstance(opponents, str) else list(opponents)
    names = tuple(str(p).strip().lower() for p in parts)
    for name in names:
        if name not in BOT_NAMES:
            raise ValueError(f"unknown opponent {name!r} (expected one of: {', '.join(BOT_NAMES)})")
    if len(names) == 1:
        return names * (players - 1)
    if len(names) != players - 1:
        raise ValueError(
            f"{len(names)} opponents named for {players - 1} other seats "
            "(name one bot for all, or one per seat)"
        )
    return names


class _Game:
    """One game at the terminal: a :class:`~cambio.match.Match` driven seat by seat.

    At every decision point where the top discard may be snapped, everyone who may snap
    declares at the same moment without seeing the others' choice: you first (so no bot
    snap is ever applied before you were asked), then each bot in :attr:`Round.reactors`
    order. The declared snaps are resolved by :meth:`Match.resolve_snaps`, that is by the
    table's ``snap.arbitration`` (``first`` takes the declarations in seat order from the
    player who discarded, as nobody at a terminal can be faster than a program). When
    nobody snaps, the player to act decides.
    """

    def __init__(
        self,
        settings: _Settings,
        term: Terminal,
        save_to: Path,
        script: Sequence[dict[str, Any] | None] = (),
        *,
        resumed: bool = False,
    ) -> None:
        self.settings = settings
        self.resumed = resumed
        self.term = term
        self.save_to = save_to
        rules = settings.rules
        self.match = Match(rules, settings.players, seed=settings.seed)
        n = self.match.players
        names = ["You", *OPPONENT_NAMES[: n - 1]]
        while len(names) < n:
            names.append(f"Bot {len(names)}")
        self.names = names
        self.person = TerminalPlayer(
            term, rules, names, show_known=settings.show_known, hints=settings.hints
        )
        self.person.script = list(script)
        self.person.scores = self._scores
        chosen = settings.opponents or ("memory",) * (n - 1)
        self.bots: dict[int, Bot] = {s: _opponent(chosen[s - 1]) for s in range(1, n)}
        self._round_dealt = 0
        self._asked: tuple[int, int] = (-1, -1)
        self._watching = True
        self._told = 0

    # --- saving
    def save(self, *, finished: bool = False) -> Path:
        s = self.settings
        data = {
            "format": SAVE_FORMAT,
            "rules": ruleset_to_dict(s.rules),
            "players": s.players,
            "seed": s.seed,
            "whole_match": s.whole_match,
            "snap": s.snap,
            "show_known": s.show_known,
            "hints": s.hints,
            "opponents": list(s.opponents),
            "answers": self.person.answers,
            "actions": [a.to_dict() for a in self.match.actions],
            "finished": finished,
        }
        self.save_to.parent.mkdir(parents=True, exist_ok=True)
        self.save_to.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        return self.save_to

    # --- the loop
    def run(self) -> int:
        term = self.term
        match = self.match
        whole = self.settings.whole_match
        if self.resumed:
            term.quiet = True  # what was shown before is not shown again
        self._introduce()
        for event in match.events:
            self._tell(event)
        first = match.view(0).round
        for event in first.history if first is not None else ():
            self._tell(event)
        over = False
        while not match.is_over and not over:
            self._deal_bots()
            for event in self._step():
                self._tell(event)
                if event.kind == MatchEventKind.ROUND_END and not whole:
                    over = True  # --round: the next round's deal is not shown
                    break
        if self.person.script:
            raise SaveError("$.answers", "more answers than the saved game has decisions")
        if self.settings.finished:
            return self._show_finished()
        self.person.finish_script(None)
        if match.is_over and whole and self.settings.rules.match.end != "single":
            term.say(self._match_end())
        term.say(term.rule * 60)
        if self.resumed or self.save_to.exists():
            try:
                self.save(finished=True)
            except OSError as error:
                term.say(f"The save {self.save_to} could not be marked finished: {error}.")
            else:
                term.say(f"The save {self.save_to} is marked finished.")
        return 0

    def _show_finished(self) -> int:
        """A finished game resumed: its result, with nothing left to play."""
        term = self.term
        term.quiet = False
        term.say(term.rule * 60)
        term.say(f"This game is over; {self.save_to} holds its result.")
        term.say(self._scores())
        record = self.match.records[-1] if self.match.records else None
        if record is not None:
            seats = record.players
            names = [self.names[s] for s in seats]
            term.say(
                end_text(record.result, names, seats.index(0) if 0 in seats else -1, term.card)
            )
        if self.match.is_over and self.settings.rules.match.end != "single":
            term.say(self._match_end())
        term.say(term.rule * 60)
        return 0

    def _scores(self) -> str:
        """The table, the round and every player's total (the ``score`` command)."""
        s = self.settings
        match = self.match
        names = self.names
        aids = ", learner's aids on" if s.show_known else ""
        aids += ", hints on" if s.hints else ""
        lines = [
            f"Cambio at the {s.rules.name} table{aids}: {match.players} players, seed {s.seed}."
        ]
        played = len(match.records)
        goal = _match_goal(s.rules) if s.whole_match else "one round (--round)"
        if match.is_over or (not s.whole_match and played):
            lines.append(
                f"Finished after {played} round{'s' if played != 1 else ''}; the game: {goal}."
            )
        else:
            lines.append(f"Round {match.round_number} is being played; the game: {goal}.")
        if not played:
            lines.append("No round is finished yet: every total is 0.")
            return "\n".join(lines)
        lines.append(
            f"After {played} round{'s' if played != 1 else ''}: "
            + _totals_line(match.totals, names, match.eliminated)
        )
        width = max(len(n) for n in names)
        for seat in range(match.players):
            rounds = ", ".join(
                "-" if r.scores[seat] is None else str(r.scores[seat]) for r in match.records
            )
            lines.append(
                f"  {names[seat].ljust(width)}  {match.totals[seat]:>4}   rounds: {rounds}"
            )
        return "\n".join(lines)

    def _introduce(self) -> None:
        term = self.term
        rules = self.settings.rules
        n = self.match.players
        names = self.names
        line = term.rule * 60
        term.say(line)
        hints = ", hints on" if self.settings.hints else ""
        term.say(
            f"Cambio at the {rules.name} table{hints}: {n} players, seed {self.settings.seed}."
        )
        bots = self.settings.opponents or ("memory",) * (n - 1)
        others = ", ".join(f"{names[p]} (P{p}, {bots[p - 1]} bot)" for p in range(1, n))
        term.say(f"You are P0; {others} {'are' if n > 2 else 'is'} the computer.")
        if self.settings.show_known:
            term.say("Learner's aids on: your board shows the cards you have seen.")
        if self.settings.hints:
            term.say("Hints on: type hint at any decision for the best moves, estimated.")
        if rules.teams.size > 1:
            for team in self.match.teams:
                if 0 in team:
                    mates = [names[p] for p in team if p != 0]
                    term.say(f"You play in a team with {', '.join(mates)}.")
        if self.settings.whole_match and rules.match.end != "single":
            term.say(f"A whole match: {_match_goal(rules)}. (--round plays a single round.)")
        term.say("Lowest total wins. Type help for the commands, q to leave (the game is saved).")
        term.say(line)

    def _deal_bots(self) -> None:
        """Reset every player at the start of each round (bots seeded per round and seat)."""
        match = self.match
        if self._round_dealt == match.round_number:
            return
        self._round_dealt = match.round_number
        rnd = match.round
        for r, s in enumerate(match.round_seats):
            seed = derive_seed(self.settings.seed, "play", match.round_number, s)
            if s == 0:
                self.person.reset(0, rnd.rules, seed)
            else:
                self.bots[s].reset(r, rnd.rules, seed)

    def _step(self) -> list[Event]:
        """One decision point: snaps declared at once and resolved, else one decision."""
        match = self.match
        rnd = match.round
        seats = match.round_seats
        declared: list[Action] = []
        reactors = match.reactors
        if 0 in reactors and self._prompt_snap():
            view = self._my_view()
            snaps = [a for a in match.legal_actions(0) if a.kind is ActionKind.SNAP]
            answer = self.person.react(view, snaps)
            if answer is not None:
                declared.append(answer)
        for s in reactors:
            if s == 0:
                continue
            r = seats.index(s)
            snaps = [a for a in rnd.legal_actions(r) if a.kind is ActionKind.SNAP]
            if not snaps:
                continue
            answer = self.bots[s].react(rnd.view(r), snaps)
            if answer is None:
                continue
            if answer not in snaps:
                raise BotError(f"bot at seat {s} answered {answer}, which it was not offered")
            declared.append(_to_match(answer, seats))
        if declared:
            return match.resolve_snaps(declared)
        who = match.to_act
        assert who is not None
        if who == 0:
            chosen = self.person.act(self._my_view(), match.legal_actions(0))
        else:
            r = seats.index(who)
            legal = rnd.legal_actions(r)
            answer = self.bots[who].act(rnd.view(r), legal)
            if answer not in legal:
                raise BotError(f"bot at seat {who} answered {answer}, which is not legal now")
            chosen = _to_match(answer, seats)
        return match.apply(chosen)

    def _my_view(self) -> PlayerView:
        view = self.match.view(0).round
        assert view is not None
        return view

    def _prompt_snap(self) -> bool:
        """Whether to stop and offer you a snap now: once per discard, as --snap says."""
        mode = self.settings.snap
        if mode == "never":
            return False
        view = self._my_view()
        window = (
            self.match.round_number,
            sum(1 for e in view.history if e.kind in _WINDOW_EVENTS),
        )
        if window == self._asked:
            return False
        if mode == "known" and not _known_match(view, self.match.round.rules):
            return False
        self._asked = window
        return True

    # --- what is shown
    def _tell(self, event: Event) -> None:
        term = self.term
        if event.kind in _MATCH_KINDS:
            # a step's events may repeat match events; the match's own log has each once
            log = self.match.events
            for new in log[self._told :]:
                self._tell_match(new)
                if new.kind == MatchEventKind.ROUND_END and not self.settings.whole_match:
                    break  # --round: nothing after the round's end
            self._told = len(log)
            return
        if not self._watching:
            return  # you sit this round out: only its result is shown
        seen = event.as_seen_by(0)
        if seen.kind == EventKind.OPENING_PEEK and seen.player == 0 and seen.cards:
            self._reveal(seen)
            return
        text = narrate(seen, self.names, 0, term.card)
        if seen.kind == EventKind.TURN:
            term.say(f"{term.rule * 3} {text[:-1]} {term.rule * 3}")
        elif text:
            term.say(f"  {text}")
        looked = any(c is not None for c in seen.cards)
        if seen.player == 0 and looked and seen.kind in _PRIVATE_LOOKS:
            self._hide("Remember it. Press Enter to hide it. ")

    def _hide(self, prompt: str) -> None:
        """From memory: keep a card you looked at on screen until you press Enter.

        A line of input (any text) hides it; ``q`` leaves the table. Nothing is asked
        while a saved game is replayed, nor with learner's aids (the board keeps it).
        """
        term = self.term
        if self.settings.show_known or term.quiet:
            return
        line = term.ask(prompt)
        if line.strip().lower() in ("q", "quit", "exit"):
            raise _Quit
        term.clear()

    def _reveal(self, event: Event) -> None:
        term = self.term
        term.say("Your opening peek. Remember these cards and where they lie:")
        for (_, pos), c in zip(event.positions, event.cards, strict=False):
            term.say(f"  [{pos}] {term.card(c)}")
        if not self.settings.show_known:
            self._hide("Press Enter to hide them and begin. ")
            term.say("Your cards are face down now; the numbers [1] [2] ... are their places.")
        elif term.interactive and not term.quiet:
            term.ask(
                "Press Enter to clear the screen and begin (learner's aids: your board "
                "keeps showing the cards you know). "
            )
            term.clear()
        else:
            term.say("(Learner's aids: your board shows the cards you know.)")

    def _tell_match(self, event: Event) -> None:
        term = self.term
        match = self.match
        names = self.names
        kind = event.kind
        if kind == MatchEventKind.ROUND_END:
            record = match.records[-1]
            seats = record.players
            term.say(term.rule * 60)
            round_names = [names[s] for s in seats]
            me = seats.index(0) if 0 in seats else -1
            term.say(end_text(record.result, round_names, me, term.card))
            said = ["You" if s == 0 else names[s] for s in seats]
            why = caller_reason(record.result, self.settings.rules, said)
            if why:
                term.say(why)
            if self.settings.whole_match and self.settings.rules.match.end != "single":
                extra = " (a tie-break)" if record.extra else ""
                term.say(
                    f"After round {record.number}{extra}: "
                    + _totals_line(record.totals, names, match.eliminated)
                )
        elif kind == MatchEventKind.OUT:
            who = _who(event.player, names, 0)
            verb = "are" if event.player == 0 else "is"
            term.say(f"{who} {verb} out ({event.note}).")
            if event.player == 0 and self.settings.whole_match:
                term.say("The others play on; you will see each round's result.")
        elif kind == MatchEventKind.HALVED:
            term.say(f"{_who(event.player, names, 0)} hit the limit exactly: {event.note}.")
        elif kind == MatchEventKind.TIE:
            term.say("The match is tied: an extra round for the tied players.")
        elif kind == MatchEventKind.ROUND_START:
            self._watching = 0 in match.round_seats
            dealer = _who(event.player, names, 0)
            starter = event.positions[0][0] if event.positions else -1
            starts = _who(starter, names, 0) if starter >= 0 else "?"
            deals = "deal" if event.player == 0 else "deals"
            begin = "start" if starter == 0 else "starts"
            term.say(term.rule * 60)
            term.say(f"Round {match.round_number}: {dealer} {deals}, {starts} {begin}.")
            why = starter_reason(self.settings.rules, first_round=match.round_number == 1)
            term.say(f"({why[0].upper()}{why[1:]}.)")

    def _match_end(self) -> str:
        result = self.match.result
        assert result is not None
        names = self.names
        lines = [self.term.rule * 60]
        reasons = {
            "single": "the one round decides",
            "last-standing": "last player standing",
            "all-out": "everyone crossed the limit; lowest total",
            "limit": "a total crossed the limit; lowest total",
            "rounds": "all the rounds are played; lowest total",
            "round-cap": "the round limit was reached; lowest total",
        }
        why = reasons.get(result.reason, result.reason)
        lines.append(
            f"The match is over after {result.round_count} rounds ({why})."
            if result.round_count != 1
            else f"The match is over after one round ({why})."
        )
        lines.append(_totals_line(result.totals, names, result.eliminated))
        winners = list(result.winners)
        people = [("you" if w == 0 else names[w]) for w in winners]
        if len(people) == 1:
            lines.append(
                "You win the match!" if winners[0] == 0 else f"{names[winners[0]]} wins the match."
            )
        else:
            text = ", ".join(people[:-1]) + f" and {people[-1]}"
            lines.append(f"{text[0].upper()}{text[1:]} share the match.")
        return "\n".join(lines)


def _to_match(action: Action, seats: Sequence[int]) -> Action:
    """A round-seat action in match seats."""
    return Action(
        action.kind,
        seats[action.player],
        tuple((seats[o], p) for o, p in action.positions),
    )


def _known_match(view: PlayerView, rules: RuleSet) -> bool:
    """Whether ``view`` knows a card it may snap that matches the top discard."""
    top = view.top_discard
    if top is None:
        return False

    def key(card: Card) -> object:
        return rules.value(card) if rules.snap.match == "value" else card.rank

    want = key(top)
    owners = range(view.players) if rules.snap.targets == "any" else (view.player,)
    for owner in owners:
        for i, card in enumerate(view.grids[owner]):
            if card is not None and view.present[owner][i] and key(card) == want:
                return True
    return False


def _match_goal(rules: RuleSet) -> str:
    m = rules.match
    cross = f"{'reaches' if m.at_limit else 'passes'} {m.limit}"
    if m.end == "elimination":
        return f"a player whose total {cross} is out; the last one in wins"
    if m.end == "limit":
        return f"once a total {cross}, the lowest total wins"
    if m.end == "rounds":
        return f"{m.rounds} rounds; the lowest total wins"
    return "one round"


def _totals_line(totals: Sequence[int], names: Sequence[str], out: Sequence[int]) -> str:
    parts = []
    for s, total in enumerate(totals):
        name = "You" if s == 0 else names[s]
        parts.append(f"{name} {total}" + (" (out)" if s in out else ""))
    return "totals " + ", ".join(parts) + "."


def play(
    rules: RuleSet | str = "practice",
    players: int | None = None,
    seed: int | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    aids: bool = False,
    hints: bool = False,
    whole_match: bool = True,
    snap: str | None = None,
    save_to: str | Path | None = None,
    resume: str | Path | None = None,
    opponents: str | Sequence[str] | None = None,
) -> int:
    """Play in the terminal (you are seat 0); return an exit status.

    ``rules`` is a :class:`RuleSet` or a profile name; ``players`` defaults to the
    table's default; ``seed`` makes the deals and the bots' decisions (and so the game,
    given the same input) reproducible. You play from memory: after your opening peek
    and each later look (shown until you press Enter) your cards are face down, and
    nothing on screen names a card that is not face up now; ``aids`` (learner's aids, a
    table option kept in the save) shows the cards you know instead. With
    ``whole_match`` (the default) the table's whole match is played, else one round.
    ``snap`` is one of :data:`SNAP_PROMPTS` (default: ``ask`` from memory, ``known``
    with aids, as ``known`` is itself a hint). ``hints`` (a table option kept in the save
    too) lets the ``hint`` command estimate the best moves of a decision
    (:mod:`cambio.play_hints`). Leaving (``q``, end of input, Ctrl-C)
    saves the game to ``save_to`` (default ``cambio-TABLE-SEED.json`` in
    :func:`~cambio.launch.saves_folder`); ``resume`` continues a saved game exactly
    (the other arguments are then taken from the save), or, when the save is marked
    finished (a game played to its end), shows its result. ``opponents`` names the
    other seats' bots (:func:`opponent_names`: one name for all or one per seat, from
    :data:`cambio.bots.BOT_NAMES`; MemoryBots by default). ``stdin``/``stdout`` default
    to the process streams.
    """
    term = Terminal(stdin or sys.stdin, stdout or sys.stdout)
    script: list[dict[str, Any] | None] = []
    if resume is not None:
        settings, script = load_save(Path(resume))
        if save_to is None:
            save_to = resume
    else:
        if isinstance(rules, str):
            from .loading import load_ruleset

            rules = load_ruleset(rules)
        if snap is None:
            snap = "known" if aids else "ask"
        if snap not in SNAP_PROMPTS:
            raise ValueError(f"snap must be one of {', '.join(SNAP_PROMPTS)}, not {snap!r}")
        if seed is None:
            import random

            seed = random.SystemRandom().randrange(10**6)
        seats = rules.players.default if players is None else players
        settings = _Settings(
            rules=rules,
            players=seats,
            seed=seed,
            whole_match=whole_match,
            snap=snap,
            show_known=aids,
            opponents=opponent_names(opponents, seats),
            hints=hints,
        )
    path = (
        Path(save_to)
        if save_to is not None
        else saves_folder() / f"cambio-{_safe(settings.rules.name)}-{settings.seed}.json"
    )
    game = _Game(settings, term, path, script, resumed=resume is not None)
    try:
        return game.run()
    except (_Quit, _EndOfInput, KeyboardInterrupt) as stop:
        term.quiet = False
        if isinstance(stop, _EndOfInput):
            term.say("Input ended before the game did.")
        elif isinstance(stop, KeyboardInterrupt):
            term.say("")
            term.say("Interrupted.")
        else:
            term.say("You left the table.")
        try:
            saved = game.save()
        except OSError as error:
            term.say(f"The game could not be saved to {path}: {error.strerror or error}.")
            return 1
        again = f"{launch_command()} play --resume {shlex.quote(str(saved))}"
        term.say(f"The game is saved in {saved}; continue it with: {again}")
        return 130 if isinstance(stop, KeyboardInterrupt) else 0


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name) or "table"


def load_save(path: Path) -> tuple[_Settings, list[dict[str, Any] | None]]:
    """Read a file written when a game was left: its settings and your answers so far.

    Raises :class:`~cambio.errors.SaveError` (``OSError`` when it cannot be read).
    """
    from .loading import ruleset_from_dict

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise SaveError("$", f"not JSON ({error.msg} at line {error.lineno})") from None
    except UnicodeDecodeError:
        raise SaveError("$", "not a text file") from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise SaveError("$.format", f"not a saved game (expected {SAVE_FORMAT!r})")
    try:
        rules = ruleset_from_dict(data["rules"], source=f"{path}: rules")
    except KeyError:
        raise SaveError("$.rules", "missing") from None
    except RuleSetError as error:
        raise SaveError("$.rules", _first_line(error)) from None
    kinds = {
        "players": int,
        "seed": int,
        "whole_match": bool,
        "snap": str,
        "show_known": bool,
        "answers": list,
        "actions": list,
    }
    for key, kind in kinds.items():
        value = data.get(key)
        if type(value) is not kind:
            raise SaveError(f"$.{key}", f"expected {kind.__name__}, got {value!r}")
    if data["snap"] not in SNAP_PROMPTS:
        raise SaveError("$.snap", f"one of {', '.join(SNAP_PROMPTS)}")
    answers: list[dict[str, Any] | None] = []
    for i, answer in enumerate(data["answers"]):
        if answer is not None:
            try:
                Action.from_dict(answer)
            except ValueError as error:
                raise SaveError(f"$.answers[{i}]", str(error)) from None
        answers.append(answer)
    hints = data.get("hints", False)  # saves from before --hints: none
    if type(hints) is not bool:
        raise SaveError("$.hints", f"expected bool, got {hints!r}")
    finished = data.get("finished", False)  # saves from before marking: unfinished
    if type(finished) is not bool:
        raise SaveError("$.finished", f"expected bool, got {finished!r}")
    chosen = data.get("opponents", ["memory"])  # saves from before --opponents: memory
    if not isinstance(chosen, list) or not all(isinstance(x, str) for x in chosen):
        raise SaveError("$.opponents", f"expected a list of bot names, got {chosen!r}")
    try:
        opponents = opponent_names(chosen or ["memory"], max(2, data["players"]))
    except ValueError as error:
        raise SaveError("$.opponents", str(error)) from None
    settings = _Settings(
        rules=rules,
        players=data["players"],
        seed=data["seed"],
        whole_match=data["whole_match"],
        snap=data["snap"],
        show_known=data["show_known"],
        opponents=opponents,
        hints=hints,
        finished=finished,
    )
    try:
        Match(rules, settings.players, seed=settings.seed)
    except (TypeError, ValueError) as error:
        raise SaveError("$.players", str(error)) from None
    return settings, answers


def _first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__


# ---------------------------------------------------------------------------------------
# The `cambio play` command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``cambio play``."""
    parser.add_argument(
        "--variant", default="practice", metavar="V", help="profile name or TOML file"
    )
    parser.add_argument(
        "--players", type=int, default=None, metavar="N", help="seats, you included"
    )
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="deal seed")
    parser.add_argument(
        "--round",
        action="store_true",
        help="play a single round instead of the table's whole match",
    )
    parser.add_argument(
        "--snap",
        choices=SNAP_PROMPTS,
        default=None,
        help="when to stop and offer you a snap: whenever you may (ask, the default when "
        "you play from memory), only when you know a matching card (known, the default "
        "with --aids: itself a hint), or never (snap with n on your turn)",
    )
    parser.add_argument(
        "--aids",
        action="store_true",
        help="learner's aids: the board shows the cards you have seen (by default you "
        "play from memory: cards are face down once you hide them)",
    )
    parser.add_argument(
        "--hints",
        action="store_true",
        help="hints: at any decision, hint shows the best moves with their estimated "
        "share of the win (a table option, kept in the save; off by default)",
    )
    parser.add_argument(
        "--opponents",
        default="memory",
        metavar="BOTS",
        help="the computer players: one bot name for all or one per seat, comma-separated "
        f"({', '.join(BOT_NAMES)}; default memory)",
    )
    parser.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="where to save the game when you leave (default: cambio-TABLE-SEED.json in "
        "$XDG_DATA_HOME/cambio/saves, or ~/.local/share/cambio/saves)",
    )
    parser.add_argument(
        "--resume",
        default=None,
        metavar="FILE",
        help="continue a saved game exactly where it stopped",
    )


def run_command(args: argparse.Namespace) -> int:
    """Run ``cambio play`` from parsed arguments; return the exit status."""
    from .loading import load_ruleset

    if args.resume is not None:
        try:
            return play(resume=args.resume, save_to=args.save)
        except SaveError as error:
            sys.stderr.write(f"cambio play: error: {args.resume}: {_first_line(error)}\n")
            return 1
        except OSError as error:
            sys.stderr.write(
                f"cambio play: error: {args.resume}: {error.strerror or _first_line(error)}\n"
            )
            return 1
    try:
        rules = load_ruleset(args.variant)
    except (RuleSetError, OSError, ValueError) as error:
        sys.stderr.write(f"cambio play: error: {_first_line(error)}\n")
        return 1
    players = args.players
    if players is not None:
        lo, hi = rules.players.min, rules.players.max
        if not lo <= players <= hi:
            sys.stderr.write(
                f"cambio play: error: the {rules.name} table seats {lo} to {hi} players, "
                f"not {players}\n"
            )
            return 2
        size = rules.teams.size
        if size > 1 and players % size:
            sys.stderr.write(
                f"cambio play: error: the {rules.name} table plays in teams of {size}\n"
            )
            return 2
    seats = rules.players.default if players is None else players
    try:
        opponents = opponent_names(args.opponents, seats)
    except ValueError as error:
        sys.stderr.write(f"cambio play: error: --opponents: {error}\n")
        return 2
    return play(
        rules,
        players,
        args.seed,
        aids=args.aids,
        hints=args.hints,
        whole_match=not args.round,
        snap=args.snap,
        save_to=args.save,
        opponents=opponents,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cambio.play``: the same as ``cambio play``."""
    parser = argparse.ArgumentParser(prog="cambio play", description="Play Cambio in the terminal.")
    add_arguments(parser)
    return run_command(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

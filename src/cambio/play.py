"""Play Cambio in the terminal: you in seat 0 against bots (MemoryBots unless you choose).

``cambio play`` (or :func:`play`) deals a round, shows your opening peek once, then
asks for short typed commands on your decisions (``help`` lists them) and prints every
other move as you see it: public information only. Your grid shows a card only where
you legally know it (or none at all with ``from_memory``, as at a real table). The end
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
``help`` / ``q``        these commands / quit
======================  ================================================
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from .actions import Action, ActionKind
from .bots import BOT_NAMES, Bot, derive_seed, make_bot, play_round
from .cards import JOKER, Card
from .events import Event, EventKind
from .round import Round
from .rules import RuleSet
from .scoring import RoundResult
from .views import PlayerView

__all__ = ["TerminalPlayer", "add_arguments", "play", "run_command"]

OPPONENT_NAMES = ("Robin", "Alex", "Sam", "Kit", "Noor", "Jo", "Ari")
"""Names of the computer players, seat 1 onwards."""

_WINDOW_EVENTS = frozenset(
    {EventKind.REPLACE, EventKind.DISCARD, EventKind.EXCHANGE, EventKind.FAILED_EXCHANGE}
)


class _Quit(Exception):
    """The person typed ``q``."""


class _EndOfInput(Exception):
    """Standard input ran out."""


class _Terminal:
    """Line input and output, with cards drawn in what the output can show."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.interactive = _isatty(stdin) and _isatty(stdout)
        encoding = getattr(stdout, "encoding", None) or "utf-8"
        try:
            "\u2660\u2665\u2666\u2663\u2500".encode(encoding)
            self.unicode = True
        except (UnicodeEncodeError, LookupError):
            self.unicode = False

    def say(self, text: str = "") -> None:
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
    "you"). With ``show_known`` false the grids hide every face-down card, even those
    you have seen: you play from memory.
    """

    def __init__(
        self,
        terminal: _Terminal,
        rules: RuleSet,
        names: Sequence[str],
        *,
        show_known: bool = True,
    ) -> None:
        self.term = terminal
        self.rules = rules
        self.names = list(names)
        self.show_known = show_known
        self.seat = 0
        self._asked_window = -1

    # --- the Bot protocol
    def reset(self, seat: int, rules: RuleSet, seed: int | None) -> None:
        del seed
        self.seat = seat
        self.rules = rules
        self._asked_window = -1

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if view.phase == "turn":
            self.term.say()
            self.show_board(view)
        self.term.say(self._situation(view, legal))
        while True:
            line = self.term.ask("> ")
            action = self._interpret(line, view, legal)
            if action is not None:
                return action

    def react(self, view: PlayerView, snaps: Sequence[Action]) -> Action | None:
        if view.to_act == self.seat:
            return None  # the snap commands are offered with the decision itself
        window = sum(1 for e in view.history if e.kind in _WINDOW_EVENTS)
        if window == self._asked_window:
            return None
        self._asked_window = window
        top = view.top_discard
        self.term.say(
            f"{self.term.card(top)} is on the discard pile. Snap? "
            f"{_snap_hint(snaps, self.seat)}, or press Enter to let it go."
        )
        while True:
            line = self.term.ask("snap? ")
            words = line.split()
            if not words:
                return None
            if words[0].lower() not in ("n", "snap") and not _is_info(words[0]):
                self.term.say("Only a snap (n ...) now, or Enter to let it go.")
                continue
            action = self._interpret(line, view, snaps)
            if action is not None:
                return action

    # --- reading commands
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
            return [Action.peek(me, *slot)]
        if command in ("s", "swap"):
            if len(numbers) == 3:
                first, second = (me, numbers[0]), (numbers[1], numbers[2])
            elif len(numbers) == 4:
                first, second = (numbers[0], numbers[1]), (numbers[2], numbers[3])
            else:
                raise ValueError("swap: give PLAYER POS PLAYER POS, e.g. s 0 3 1 2.")
            return [Action.swap(me, first, second), Action.swap(me, second, first)]
        if command in ("n", "snap"):
            return [Action.snap(me, *slots("snap"))]
        return []

    def _why_not(self, action: Action, view: PlayerView, legal: Sequence[Action]) -> str:
        kinds = {a.kind for a in legal}
        if action.kind not in kinds:
            verb = _VERBS.get(action.kind, action.kind.value)
            return f"You cannot {verb} now. {self._options(view, legal)}"
        targets = [a for a in legal if a.kind is action.kind]
        places = ", ".join(_command_text(a, self.seat) for a in targets[:24])
        more = " ..." if len(targets) > 24 else ""
        return f"Not those positions. Possible: {places}{more}"

    # --- what is shown
    def show_board(self, view: PlayerView) -> None:
        self.term.say(board_text(view, self.names, self.rules, self.term.card, self.show_known))

    def _show_history(self, view: PlayerView) -> None:
        lines = [narrate(e, self.names, self.seat, self.term.card) for e in view.history]
        shown = [line for line in lines if line]
        self.term.say("Move history (as you saw it):")
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


def _is_info(word: str) -> bool:
    return word.lower() in ("b", "board", "h", "history", "help", "?", "q", "quit", "exit")


_LETTERS = {
    ActionKind.REPLACE: "r",
    ActionKind.GIVE: "g",
    ActionKind.EXCHANGE: "e",
    ActionKind.OPENING_PEEK: "o",
    ActionKind.PEEK: "p",
    ActionKind.SWAP: "s",
    ActionKind.SNAP: "n",
}


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
) -> str:
    """Every grid as rows of positions, with the cards ``view`` knows (``??`` otherwise)."""
    me = view.player
    order = [p for p in range(view.players) if p != me] + [me]
    width = max(len(_label(p, names, me, view)) for p in order) + 2
    lines = []
    for p in order:
        label = _label(p, names, me, view).ljust(width)
        rows = _grid_rows(view, p, rules, card, show_known)
        for k, row in enumerate(rows):
            lines.append((label if k == 0 else " " * width) + row)
    top = view.top_discard
    pile = (
        f"Discard: {card(top)} ({_count(len(view.discard))})" if top is not None else "Discard: -"
    )
    status = f"{pile}  Stock: {_count(view.stock_size)}"
    if view.caller is not None:
        status += f"  {_who(view.caller, names, me)} called Cambio"
    lines.append(status)
    return "\n".join(lines)


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
) -> list[str]:
    present = view.present[owner]
    known = view.grids[owner]

    def cell(i: int) -> str:
        if not present[i]:
            text = "--"
        else:
            seen = known[i]
            text = card(seen if show_known else None)
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
        first = card(cards[0]) if cards else "a card"
        return f"The cards are dealt; {first} starts the discard pile."
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
        if shown:
            return f"You draw {card(shown[0])}."
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


# ---------------------------------------------------------------------------------------
# The game


def play(
    rules: RuleSet | str = "practice",
    players: int | None = None,
    seed: int | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    show_known: bool = True,
    opponents: str = "memory",
) -> int:
    """Play one round in the terminal (you are seat 0); return an exit status (0).

    ``opponents`` names the bot of every other seat (see :data:`cambio.bots.BOT_NAMES`).

    ``rules`` is a :class:`RuleSet` or a profile name; ``players`` defaults to the
    table's default; ``seed`` makes the deal (and so the game, given the same input)
    reproducible. ``stdin``/``stdout`` default to the process streams.
    """
    if isinstance(rules, str):
        from .loading import load_ruleset

        rules = load_ruleset(rules)
    term = _Terminal(stdin or sys.stdin, stdout or sys.stdout)
    if seed is None:
        import random

        seed = random.SystemRandom().randrange(10**6)
    rnd = Round(rules, players, seed=seed)
    n = rnd.players
    names = ["You", *OPPONENT_NAMES[: n - 1]]
    while len(names) < n:
        names.append(f"Bot {len(names)}")
    me = 0
    person = TerminalPlayer(term, rules, names, show_known=show_known)
    bots: list[Bot] = [person, *(make_bot(opponents) for _ in range(n - 1))]

    line = term.rule * 60
    term.say(line)
    term.say(f"Cambio at the {rules.name} table: {n} players, seed {seed}.")
    others = ", ".join(f"{names[p]} (P{p})" for p in range(1, n))
    term.say(f"You are P0; {others} {'are' if n > 2 else 'is'} the computer.")
    if rules.teams.size > 1:
        from .scoring import teams_of

        for team in teams_of(rules, n):
            if me in team:
                mates = [names[p] for p in team if p != me]
                term.say(f"You play in a team with {', '.join(mates)}.")
    term.say("Lowest total wins. Type help for the commands, q to quit.")
    term.say(line)

    def reveal(event: Event) -> None:
        term.say("Your opening peek. Remember these cards and where they lie:")
        for (_, pos), c in zip(event.positions, event.cards, strict=False):
            term.say(f"  [{pos}] {term.card(c)}")
        if term.interactive:
            term.ask("Press Enter to hide them and begin. ")
            term.clear()
        else:
            term.say("(They are hidden now.)")

    def tell(event: Event) -> None:
        seen = event.as_seen_by(me)
        if seen.kind == EventKind.OPENING_PEEK and seen.player == me and seen.cards:
            reveal(seen)
            return
        text = narrate(seen, names, me, term.card)
        if seen.kind == EventKind.TURN:
            term.say(f"{term.rule * 3} {text[:-1]} {term.rule * 3}")
        elif text:
            term.say(f"  {text}")

    def observe(action: Action, events: Sequence[Event]) -> None:
        del action
        for event in events:
            tell(event)

    try:
        for event in rnd.view(me).history:
            tell(event)
        played = play_round(
            rnd,
            bots,
            seed=derive_seed(seed, "play"),
            observer=observe,
        )
    except _Quit:
        term.say("You left the table. The round is not finished; come back any time.")
        return 0
    except _EndOfInput:
        term.say("Input ended before the round did; the game stops here.")
        return 0
    term.say(line)
    term.say(end_text(played.result, names, me, term.card))
    term.say(line)
    return 0


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
        "--from-memory",
        action="store_true",
        help="hide the cards you have seen on the board: play from memory",
    )
    parser.add_argument(
        "--opponents",
        default="memory",
        choices=sorted(BOT_NAMES),
        metavar="BOT",
        help=f"the computer players' bot: {', '.join(sorted(BOT_NAMES))} (default memory)",
    )


def run_command(args: argparse.Namespace) -> int:
    """Run ``cambio play`` from parsed arguments; return the exit status."""
    from .errors import RuleSetError
    from .loading import load_ruleset

    try:
        rules = load_ruleset(args.variant)
    except (RuleSetError, OSError, ValueError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        sys.stderr.write(f"cambio play: error: {first}\n")
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
    return play(
        rules, players, args.seed, show_known=not args.from_memory, opponents=args.opponents
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cambio.play``: the same as ``cambio play``."""
    parser = argparse.ArgumentParser(prog="cambio play", description="Play Cambio in the terminal.")
    add_arguments(parser)
    return run_command(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

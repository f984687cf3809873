"""Saving a round as JSON and loading it back, through cattrs.

A saved round holds the rules (in full), the deal (players, seed, dealer, starter, the
deck in deal order), the list of actions taken, and a snapshot of the whole state, so
that loading is immediate rather than a replay. :func:`load_round` can also replay the
actions and check that the replay reaches the same state (``verify=True``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs
import cattrs
from cattrs.preconf.json import make_converter

from .cards import Card, card_from_json, card_to_json
from .events import Event
from .scoring import RoundResult

if TYPE_CHECKING:
    from .round import Round

__all__ = ["SAVE_FORMAT", "RoundSnapshot", "load_round", "save_round"]

SAVE_FORMAT = "cambio-round/3"


@attrs.frozen
class SavedAction:
    """An action as written in a save: its kind, player and ``[owner, position]`` pairs."""

    kind: str
    player: int
    positions: list[tuple[int, int]]


@attrs.frozen
class RoundSnapshot:
    """Every piece of a round's mutable state, in plain types."""

    phase: int
    current: int
    slots: list[list[int]]
    discard: list[int]
    stock: list[int]
    known: list[int]
    drawn: int
    from_stock: bool
    power: int
    power_card: int
    step: int
    peeked: list[int]
    after_power_drawn: bool
    caller: int
    final: list[int]
    window_open: bool
    window_discarder: int
    window_tried: int
    snapper: int
    give_target: int
    give_return: int
    turns: list[int]
    total_turns: int
    repeek_used: int
    opening_seen: list[tuple[int, ...]]
    pending: list[int]
    recycles: int
    events: list[Event]
    result: RoundResult | None


@attrs.frozen
class SavedRound:
    """The whole JSON document of a saved round."""

    format: str
    rules: dict[str, Any]
    players: int
    seed: int
    dealer: int
    starter: int
    deck: list[list[str]]
    actions: list[SavedAction]
    state: RoundSnapshot | None = None


def _event_to_list(e: Event) -> list[Any]:
    return [
        e.kind,
        e.player,
        [list(p) for p in e.positions],
        [None if c is None else card_to_json(c) for c in e.cards],
        None if e.seen_by is None else sorted(e.seen_by),
        e.note,
    ]


def _event_from_list(v: Any, _: Any) -> Event:
    if not isinstance(v, list) or len(v) != 6:
        raise TypeError(
            f"expected an event as [kind, player, positions, cards, seen_by, note], found {v!r}"
        )
    kind, player, positions, cards, seen_by, note = v
    if not isinstance(kind, str) or not isinstance(player, int) or not isinstance(note, str):
        raise TypeError(f"malformed event {v!r}")
    return Event(
        kind,
        player,
        tuple((int(o), int(p)) for o, p in positions),
        tuple(None if c is None else card_from_json(c) for c in cards),
        None if seen_by is None else frozenset(int(x) for x in seen_by),
        note,
    )


def _converter() -> cattrs.Converter:
    conv = make_converter(forbid_extra_keys=True)
    conv.register_unstructure_hook(Event, _event_to_list)
    conv.register_structure_hook(Event, _event_from_list)
    conv.register_unstructure_hook(Card, card_to_json)
    conv.register_structure_hook(Card, lambda v, _: card_from_json(v))
    conv.register_unstructure_hook(
        frozenset[int] | None, lambda v: None if v is None else sorted(v)
    )
    conv.register_structure_hook(
        frozenset[int] | None, lambda v, _: None if v is None else frozenset(int(x) for x in v)
    )
    return conv


_conv = _converter()


def save_round(rnd: Round) -> dict[str, Any]:
    """The JSON-ready document of ``rnd`` (see :meth:`cambio.Round.to_dict`)."""
    from .loading import ruleset_to_dict

    space = rnd.space
    power_index = -1
    if rnd._power_now is not None:
        power_index = rnd.rules.powers.table.index(rnd._power_now)
    snapshot = RoundSnapshot(
        phase=int(rnd.phase),
        current=rnd._current,
        slots=[row[:] for row in rnd._slots],
        discard=rnd._discard[:],
        stock=rnd._stock[:],
        known=rnd._known[:],
        drawn=rnd._drawn,
        from_stock=rnd._from_stock,
        power=power_index,
        power_card=rnd._power_card,
        step=rnd._step,
        peeked=rnd._peeked[:],
        after_power_drawn=rnd._after_power_drawn,
        caller=rnd._caller,
        final=rnd._final[:],
        window_open=rnd._window_open,
        window_discarder=rnd._window_discarder,
        window_tried=rnd._window_tried,
        snapper=rnd._snapper,
        give_target=rnd._give_target,
        give_return=int(rnd._give_return),
        turns=rnd._turns[:],
        total_turns=rnd._total_turns,
        repeek_used=rnd._repeek_used,
        opening_seen=list(rnd._opening_seen),
        pending=rnd._pending[:],
        recycles=rnd._recycles,
        events=list(rnd._events),
        result=rnd._result,
    )
    doc = SavedRound(
        format=SAVE_FORMAT,
        rules=ruleset_to_dict(rnd.rules),
        players=rnd.players,
        seed=rnd.seed,
        dealer=rnd.dealer,
        starter=rnd.starter,
        deck=[card_to_json(c) for c in rnd.deck],
        actions=[
            SavedAction(a.kind.value, a.player, list(a.positions))
            for a in (space.decode(x) for x in rnd._actions)
        ],
        state=snapshot,
    )
    out: dict[str, Any] = _conv.unstructure(doc)
    return out


def load_round(data: Any, *, verify: bool = False) -> Round:
    """A round from :func:`save_round`'s document.

    The snapshot is restored directly; with ``verify`` (or when the document has no
    snapshot) the actions are replayed from the deal, and a replay that disagrees with
    the snapshot is an error. A malformed document raises ``ValueError``.
    """
    from .actions import Action, ActionKind
    from .loading import ruleset_from_dict
    from .round import Phase, Round

    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise ValueError(f"not a saved round (expected format {SAVE_FORMAT!r})")
    try:
        doc = _conv.structure(data, SavedRound)
    except Exception as exc:  # cattrs groups every problem of the document
        raise ValueError(f"malformed saved round: {cattrs.transform_error(exc)}") from None
    rules = ruleset_from_dict(doc.rules, source="<saved round>")
    try:
        actions = [
            Action(ActionKind(a.kind), a.player, tuple((o, p) for o, p in a.positions))
            for a in doc.actions
        ]
    except ValueError as exc:
        raise ValueError(f"malformed saved action: {exc}") from None
    deck = [card_from_json(c) for c in doc.deck]

    def replay() -> Round:
        return Round.replay(
            rules,
            actions,
            players=doc.players,
            seed=doc.seed,
            deck=deck,
            dealer=doc.dealer,
            starter=doc.starter,
        )

    state = doc.state
    if state is None:
        return replay()
    rnd = Round(
        rules,
        doc.players,
        seed=doc.seed,
        deck=deck,
        dealer=doc.dealer,
        starter=doc.starter,
    )
    rnd.phase = Phase(state.phase)
    rnd._current = state.current
    rnd._slots = [list(row) for row in state.slots]
    rnd._discard = list(state.discard)
    rnd._stock = list(state.stock)
    rnd._known = list(state.known)
    rnd._drawn = state.drawn
    rnd._from_stock = state.from_stock
    rnd._power_now = rules.powers.table[state.power] if state.power >= 0 else None
    rnd._power_card = state.power_card
    rnd._step = state.step
    rnd._peeked = list(state.peeked)
    rnd._after_power_drawn = state.after_power_drawn
    rnd._caller = state.caller
    rnd._final = list(state.final)
    rnd._window_open = state.window_open
    rnd._window_discarder = state.window_discarder
    rnd._window_tried = state.window_tried
    rnd._snapper = state.snapper
    rnd._give_target = state.give_target
    rnd._give_return = Phase(state.give_return)
    rnd._turns = list(state.turns)
    rnd._total_turns = state.total_turns
    rnd._repeek_used = state.repeek_used
    rnd._opening_seen = [tuple(p) for p in state.opening_seen]
    rnd._pending = list(state.pending)
    rnd._recycles = state.recycles
    rnd._events = list(state.events)
    rnd._histories = [() for _ in range(rnd.players)]
    rnd._result = state.result
    rnd._actions = [rnd.space.encode(a) for a in actions]
    rnd._legal_cache = {}
    if verify and replay() != rnd:
        raise ValueError("the saved state disagrees with a replay of the saved actions")
    return rnd


def dumps(rnd: Round) -> str:
    return json.dumps(save_round(rnd), separators=(",", ":"))

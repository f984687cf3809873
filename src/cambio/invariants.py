"""The invariants of a round's state: what must hold between any two actions.

One implementation serves three callers: loading a saved round (every load checks its
snapshot), reading a written position, and the property tests, which check every state
a random round passes through. A state that breaks none of these invariants is one the
engine can play on: every card lies in exactly one place, every seat, phase, power step
and knowledge bit is in range, the pieces of the current phase are present (and the
pieces of other phases absent), and a finished round's result is the one its hands score.

>>> import cambio
>>> r = cambio.Round("practice", players=3, seed=1)
>>> state_problem(r) is None
True
>>> r._slots[1][0] = r._slots[0][0]  # one card in two grids
>>> state_problem(r)
('slots[1][0]', 'card 0 lies in 2 places (slots[0][0], slots[1][0])')

Paths name the fields of a saved round's snapshot (``state`` in a save, see
:mod:`cambio.saving`): ``slots[1][2]`` is seat 1's third position, ``known[7]`` the
knowledge bits of card 7 (the eighth card of the deal), and so on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .errors import SaveError
from .events import Event, EventKind
from .scoring import score_round

if TYPE_CHECKING:
    from .cards import Card
    from .round import Round

__all__ = ["ensure_consistent", "state_problem"]

_EVENT_KINDS = frozenset(
    v for k, v in vars(EventKind).items() if k.isupper() and isinstance(v, str)
)
_KIND_IDS = frozenset(id(k) for k in EventKind)
_REASONS = ("call", "stock", "empty-grid", "turn-cap")


def state_problem(rnd: Round, *, events: bool = True) -> tuple[str, str] | None:
    """The first broken invariant of ``rnd``'s state, as ``(path, message)``, or ``None``.

    Signature: ``state_problem(rnd: Round) -> tuple[str, str] | None``. ``rnd`` is a
    :class:`~cambio.round.Round` whose deal (rules, players, seed, deck, dealer,
    starter) was made by its constructor and whose mutable state (``_slots``,
    ``_discard``, ... ``_result``) may have been set from outside, as a load does.
    ``path`` names the snapshot field (``slots[1][2]``, ``phase``, ``result.scores``);
    ``message`` says what is wrong there, in words fit for a user. The checks run in
    order from shapes and ranges to relations between fields, so a later check may rely
    on an earlier one; only the first problem is reported. The function never raises on
    a malformed state (it reads nothing before checking its shape) and changes nothing
    but ``rnd``'s legal-action cache. With ``events=False`` the event log need not start
    with the deal: a round built from a written position (:mod:`cambio.position`) starts
    with none, and a round saved after play from a position holds only the events since
    (each is still checked: its kind, seats, places and cards).
    """
    for problem in _problems(rnd, events):
        return problem
    return None


def ensure_consistent(rnd: Round, prefix: str = "", *, events: bool = True) -> None:
    """Raise :class:`~cambio.errors.SaveError` at the first broken invariant of ``rnd``.

    ``prefix`` is put before the field path (``"$.state."`` for a save), so that the
    error names the place in the caller's document; ``events`` as for
    :func:`state_problem`.
    """
    problem = state_problem(rnd, events=events)
    if problem is not None:
        path, message = problem
        where = prefix + path if path else prefix.rstrip(".")
        raise SaveError(where, message)


def _seat(value: int, n: int, *, none_ok: bool = True) -> bool:
    return (none_ok and value == -1) or 0 <= value < n


def _problems(r: Round, events: bool = True) -> Iterator[tuple[str, str]]:
    from .round import Phase

    rules = r.rules
    n = r.players
    N = len(r.deck)
    P = r._P
    ALL = (1 << n) - 1
    phase = r._phase
    if not isinstance(phase, Phase):
        yield "phase", f"expected a phase number from 0 to {len(Phase) - 1}"
        return
    if (phase is Phase.OVER) != (r._result is not None):
        yield "result", "a round has a result exactly when it is over"
        return

    # --- shapes and ranges -------------------------------------------------------
    if not _seat(r._current, n, none_ok=False):
        yield "current", f"expected a seat from 0 to {n - 1}, found {r._current}"
        return
    if len(r._slots) != n:
        yield "slots", f"expected one row per player ({n}), found {len(r._slots)}"
        return
    for p, row in enumerate(r._slots):
        if len(row) != P:
            yield f"slots[{p}]", f"expected {P} positions (grid and extra), found {len(row)}"
            return
        for i, c in enumerate(row):
            if not -1 <= c < N:
                yield f"slots[{p}][{i}]", f"expected -1 (empty) or a card from 0 to {N - 1}"
                return
    for name, pile in (("discard", r._discard), ("stock", r._stock)):
        for i, c in enumerate(pile):
            if not 0 <= c < N:
                yield f"{name}[{i}]", f"expected a card from 0 to {N - 1}, found {c}"
                return
    if not -1 <= r._drawn < N:
        yield "drawn", f"expected -1 (no card held) or a card from 0 to {N - 1}"
        return

    # --- every card in exactly one place ------------------------------------------
    places: dict[int, list[str]] = {}
    for p, row in enumerate(r._slots):
        for i, c in enumerate(row):
            if c >= 0:
                places.setdefault(c, []).append(f"slots[{p}][{i}]")
    for name, pile in (("discard", r._discard), ("stock", r._stock)):
        for i, c in enumerate(pile):
            places.setdefault(c, []).append(f"{name}[{i}]")
    if r._drawn >= 0:
        places.setdefault(r._drawn, []).append("drawn")
    for c in range(N):
        where = places.get(c, [])
        if len(where) != 1:
            if where:
                yield where[-1], f"card {c} lies in {len(where)} places ({', '.join(where)})"
            else:
                yield "", f"card {c} lies nowhere (not in a grid, a pile or a hand)"
            return

    # --- knowledge ---------------------------------------------------------------
    if len(r._known) != N:
        yield "known", f"expected one entry per card ({N}), found {len(r._known)}"
        return
    for c, bits in enumerate(r._known):
        if not 0 <= bits <= ALL:
            yield f"known[{c}]", f"expected player bits from 0 to {ALL}, found {bits}"
            return
    for i, c in enumerate(r._stock):
        if r._known[c]:
            yield f"known[{c}]", f"card {c} lies face down in the stock (stock[{i}]) but is known"
            return
    for c in r._discard:
        if r._known[c] != ALL:
            yield (
                f"known[{c}]",
                f"card {c} lies face up on the discard pile but is not known to all",
            )
            return

    # --- seats, counters, bit sets -------------------------------------------------
    if len(r._turns) != n:
        yield "turns", f"expected one count per player ({n}), found {len(r._turns)}"
        return
    for p, t in enumerate(r._turns):
        if t < 0:
            yield f"turns[{p}]", f"expected 0 or more turns, found {t}"
            return
    if r._total_turns != sum(r._turns):
        yield "total_turns", f"expected the sum of turns ({sum(r._turns)}), found {r._total_turns}"
        return
    cap = rules.turn.max_turns
    if cap and r._total_turns > cap:
        yield "total_turns", f"the table ends a round after {cap} turns, found {r._total_turns}"
        return
    for name, bits in (("window_tried", r._window_tried), ("repeek_used", r._repeek_used)):
        if not 0 <= bits <= ALL:
            yield name, f"expected player bits from 0 to {ALL}, found {bits}"
            return
    if r._repeek_used and not rules.opening.re_peek:
        yield "repeek_used", "this table has no re-peek"
        return
    if r._recycles < 0 or (r._recycles and rules.stock.on_empty != "recycle"):
        yield "recycles", f"expected {'0 or more' if rules.stock.on_empty == 'recycle' else '0'}"
        return
    for name, seat in (
        ("caller", r._caller),
        ("window_discarder", r._window_discarder),
        ("snapper", r._snapper),
    ):
        if not _seat(seat, n):
            yield name, f"expected -1 (nobody) or a seat from 0 to {n - 1}, found {seat}"
            return
    if r._caller >= 0 and not rules.call.allowed and rules.snap.empty_grid != "call":
        yield "caller", "nobody can call on this table"
        return
    for i, seat in enumerate(r._final):
        if not _seat(seat, n, none_ok=False):
            yield f"final[{i}]", f"expected a seat from 0 to {n - 1}, found {seat}"
            return
    most_final = n * max(1, rules.call.final_turns) + 1
    if r._final and r._caller < 0:
        yield "final", "final turns without a caller"
        return
    if len(r._final) > most_final:
        yield "final", f"expected at most {most_final} final turns, found {len(r._final)}"
        return
    if not -1 <= r._give_target < n * P:
        yield "give_target", f"expected -1 or a place from 0 to {n * P - 1}"
        return
    turn_phases: tuple[Phase, ...] = (
        Phase.TURN,
        Phase.DRAWN,
        Phase.TAKEN,
        Phase.POWER,
        Phase.END_OF_TURN,
    )
    if rules.snap.last_discard:
        turn_phases += (Phase.CLOSING,)  # a correct snap of the last discard may owe a give
    if r._give_return not in turn_phases:
        yield "give_return", "expected the number of a turn phase (1 to 5, or 8 when closing)"
        return

    if not 0 <= r._calls_owed <= ALL:
        yield "calls_owed", f"expected player bits from 0 to {ALL}, found {r._calls_owed}"
        return
    snap = rules.snap
    if r._calls_owed and (
        snap.when == "never" or snap.empty_grid != "call" or snap.empty_grid_calls != "next-turn"
    ):
        yield (
            "calls_owed",
            "only a table where an emptied grid calls at its owner's next turn owes calls",
        )
        return
    yield from _reachable_problems(r)
    closing = r._phase is Phase.CLOSING or (
        r._phase is Phase.GIVE and r._give_return is Phase.CLOSING
    )
    reasons = ("stock", "turn-cap", "call")
    if closing and r._closing_reason not in reasons:
        yield (
            "closing_reason",
            f"expected 'stock', 'turn-cap' or 'call', found {r._closing_reason!r}",
        )
        return
    stale = r._closing_reason not in reasons or r._phase is not Phase.OVER
    if r._closing_reason and stale and not closing:
        yield (
            "closing_reason",
            f"expected '' before the round closes, found {r._closing_reason!r}",
        )
        return
    if closing and not rules.snap.last_discard:
        yield "phase", "this table scores the last discard at once (no closing phase)"
        return
    for c, owner in r._penalty_of.items():
        if not _seat(owner, n, none_ok=False) or c not in r._slots[owner][: r._G]:
            yield "penalty_of", f"card {c} is no penalty card in seat {owner}'s grid"
            return
    if r._penalty_of and rules.snap.penalty_position != "first-empty":
        c = min(r._penalty_of)
        yield (
            "penalty_of",
            f"card {c} is marked a penalty card in a grid position, but this table puts "
            "penalty cards after the grid",
        )
        return

    # --- opening -------------------------------------------------------------------
    opening = rules.opening
    choices = r._opening_choices
    pending = r._pending
    if phase is Phase.OPENING:
        if not choices:
            yield "phase", "this table has no opening choice to wait for"
            return
        k = len(pending)
        expected = [(r.starter + j) % n for j in range(n - k, n)]
        if not pending or pending != expected:
            yield "pending", f"expected the players still to choose in seat order, found {pending}"
            return
    elif pending:
        yield "pending", "players wait for the opening peek only in the opening phase"
        return
    if len(r._opening_seen) != n:
        yield "opening_seen", f"expected one entry per player ({n})"
        return
    fixed = tuple(sorted(opening.positions))
    for p, seen in enumerate(r._opening_seen):
        waiting = opening.count == 0 or (phase is Phase.OPENING and p in pending)
        if waiting:
            if seen != ():
                yield f"opening_seen[{p}]", f"P{p} has not made an opening peek"
                return
        elif seen not in (choices if choices else (fixed,)):
            yield f"opening_seen[{p}]", f"not an opening peek this table allows: {list(seen)}"
            return

    # --- the phase's pieces --------------------------------------------------------
    effective = r._give_return if phase is Phase.GIVE else phase
    power = r._power_now
    if phase is Phase.GIVE:
        owner = r._give_target // P if r._give_target >= 0 else -1
        if r._snapper < 0 or r._give_target < 0:
            yield "snapper", "a give needs the snapper and the place to fill"
            return
        if owner == r._snapper:
            yield "give_target", "the snapper gives a card to another player's place"
            return
        if r._slots[owner][r._give_target % P] != -1:
            yield "give_target", "the place to fill must be empty"
            return
        if not any(c >= 0 for c in r._slots[r._snapper]):
            yield "snapper", "the snapper has no card to give"
            return
    elif r._snapper >= 0 or r._give_target >= 0:
        yield "snapper", "a snapper gives a card only in the give phase"
        return
    if phase is not Phase.OVER:
        if r._result is not None:
            yield "result", "a round that is not over has no result"
            return
        holds = effective in (Phase.DRAWN, Phase.TAKEN) or (
            effective is Phase.POWER and r._after_power_drawn
        )
        if holds != (r._drawn >= 0):
            what = "holds a card" if holds else "holds no card"
            yield "drawn", f"in phase {effective.name.lower()} the player to act {what}"
            return
        if (power is not None) != (effective is Phase.POWER):
            yield "power", f"a power is under way exactly in the power phase, not {phase.name}"
            return
        if effective is Phase.DRAWN and not r._from_stock:
            yield "from_stock", "a card held in the drawn phase comes from the stock"
            return
        if effective is Phase.TAKEN and r._from_stock:
            yield "from_stock", "a card held in the taken phase comes from the discard pile"
            return
    if r._drawn >= 0 and not r._known[r._drawn] >> r._current & 1:
        yield f"known[{r._drawn}]", "the held card is unknown to the player holding it"
        return
    if power is None:
        # the step count of the last power stays behind; it is reset when one starts
        longest = max((len(pw.steps) for pw in rules.powers.table), default=0)
        if not 0 <= r._step <= longest:
            yield "step", f"expected a step from 0 to {longest}, found {r._step}"
            return
        if r._power_card != -1 or r._peeked or r._after_power_drawn:
            yield "power", "the pieces of a power (card, peeks) without a power"
            return
    else:
        if not 0 <= r._power_card < N:
            yield "power_card", f"expected a card from 0 to {N - 1}"
            return
        if rules.powers.power_of(r.deck[r._power_card]) is not power:
            yield "power", "the power is not the power of its card"
            return
        if not 0 <= r._step < len(power.steps):
            yield "step", f"expected a step from 0 to {len(power.steps) - 1}, found {r._step}"
            return
        peeks = sum(1 for s in power.steps[: r._step] if s.action == "peek")
        if len(r._peeked) != peeks:
            yield "peeked", f"expected {peeks} places peeked so far, found {len(r._peeked)}"
            return
        for i, g in enumerate(r._peeked):
            if not 0 <= g < n * P:
                yield f"peeked[{i}]", f"expected a place from 0 to {n * P - 1}"
                return
        if r._after_power_drawn and r._drawn != r._power_card:
            yield "after_power_drawn", "a power fired by a draw belongs to the held card"
            return

    # --- the snapping window -------------------------------------------------------
    if r._window_open and (rules.snap.when == "never" or not r._discard or phase is Phase.OVER):
        yield "window_open", "no discard can be snapped now"
        return
    won_ok = rules.snap.per_discard == "one" and rules.snap.too_late == "penalty"
    if r._window_won and not (r._window_open and won_ok):
        yield (
            "window_won",
            "a window stays open after a correct snap only while it is open, on a table "
            'where a later snap of it is a wrong snap (snap.too_late = "penalty")',
        )
        return
    if phase is Phase.CLOSING and not r._window_open:  # (a give owed may follow it closed)
        yield "window_open", "the closing phase waits for snaps of the last discard: it is open"
        return

    # --- the end -------------------------------------------------------------------
    if phase is Phase.OVER:
        yield from _result_problems(r, events)
        return

    # --- a live round has a decision -------------------------------------------------
    who = r._who_acts()  # not r.to_act: a loader sets it once the state is checked
    r._drop_caches()
    try:
        legal = r.legal_action_ids(who)
        r.reactors  # noqa: B018 - computes every player's snaps
    except (IndexError, KeyError, ValueError, AssertionError) as exc:  # pragma: no cover
        yield "phase", f"the state cannot be played on ({type(exc).__name__})"
        return
    finally:
        r._drop_caches()
    if not legal:
        yield "phase", f"P{who} is to decide but has no legal action"
        return

    yield from _event_problems(r, from_deal=events)


def _result_problems(r: Round, events: bool = True) -> Iterator[tuple[str, str]]:
    res = r._result
    n = r.players
    if res is None:
        yield "result", "a finished round needs its result"
        return
    if r._window_open:
        yield "window_open", "a finished round has no open discard"
        return
    for p, row in enumerate(r._slots):
        for i, c in enumerate(row):
            if c >= 0 and r._known[c] != (1 << n) - 1:
                yield f"known[{c}]", f"a finished round shows every card (slots[{p}][{i}])"
                return
    if res.reason not in _REASONS:
        yield "result.reason", f"expected one of {', '.join(_REASONS)}"
        return
    if res.caller != r.caller:
        yield "result.caller", "the result's caller is not the round's caller"
        return
    hands = [[(i + 1, r.deck[c]) for i, c in enumerate(row) if c >= 0] for row in r._slots]
    winners: list[int | None] = [None]
    if res.reason == "empty-grid" and r.rules.snap.empty_grid == "win":
        # the emptied grid wins outright; under "end" the round is scored as usual
        winners = [p for p, row in enumerate(r._slots) if all(c < 0 for c in row)]
    for winner in winners:
        expected = score_round(
            r.rules, hands, reason=res.reason, caller=r.caller, empty_winner=winner
        )
        if expected == res:
            break
    else:
        yield "result", "the result is not the score of the final hands"
        return
    yield from _event_problems(r, from_deal=events)


def _event_problems(r: Round, *, from_deal: bool = True) -> Iterator[tuple[str, str]]:
    n = r.players
    P = r._P
    # the deck's own card objects and the event kinds are found by identity first (no
    # hashing of cards or enum members); anything else is then looked up by value
    deck_ids = {id(c) for c in r.deck}
    cards: set[Card] = set()
    events: list[Event] = r._events
    if from_deal and (not events or events[0].kind != EventKind.DEAL):
        yield "events", "the event log starts with the deal"
        return
    for k, e in enumerate(events):
        kind = e.kind
        if id(kind) not in _KIND_IDS and kind not in _EVENT_KINDS:
            yield f"events[{k}]", f"unknown event kind {kind!r}"
            return
        if not -1 <= e.player < n:
            yield (
                f"events[{k}]",
                f"expected a player from -1 (the table) to {n - 1}, found {e.player}",
            )
            return
        for o, pos in e.positions:
            if not (0 <= o < n and 1 <= pos <= P):
                yield f"events[{k}]", f"place ({o}, {pos}) is not on this table"
                return
        for card in e.cards:
            if card is None or id(card) in deck_ids:
                continue
            if not cards:
                cards = set(r.deck)
            if card not in cards:
                yield f"events[{k}]", f"card {card} is not in this table's deck"
                return
        if e.seen_by is not None and any(not 0 <= q < n for q in e.seen_by):
            yield f"events[{k}]", f"seen by a player who is not at this table: {sorted(e.seen_by)}"
            return


def _reachable_problems(r: Round) -> Iterator[tuple[str, str]]:
    """States that the counters and bit sets allow but no play reaches."""
    from .round import Phase

    rules = r.rules
    n = r.players
    phase = r._phase
    effective = r._give_return if phase is Phase.GIVE else phase
    if effective is Phase.END_OF_TURN and rules.call.timing != "end-of-turn":
        yield "phase", "this table calls before the draw, so a turn has no end-of-turn phase"
        return
    if rules.snap.when == "never" and not rules.turn.exchange_equal:
        # only snaps and exchanges change how many cards a player holds
        dealt = rules.grid.size
        for p, row in enumerate(r._slots):
            held = sum(1 for c in row if c >= 0)
            if held != dealt:
                yield (
                    f"slots[{p}]",
                    f"on a table without snapping or exchanges every player keeps the "
                    f"{dealt} cards dealt, found {held}",
                )
                return
    if r._caller < 0 and phase not in (Phase.OVER, Phase.CLOSING):
        # without a call, the turns go round from the starter: the seats before the
        # current one have had one turn more than the others
        order = [(r.starter + k) % n for k in range(n)]
        here = order.index(r._current)
        base = r._turns[order[here]]
        for k, seat in enumerate(order):
            want = base + 1 if k < here else base
            if r._turns[seat] != want:
                yield (
                    f"turns[{seat}]",
                    f"the turns go round from the starter (seat {r.starter}) to the current "
                    f"seat {r._current}: seat {seat} has had {want}, found {r._turns[seat]}",
                )
                return

"""What a player can learn from a round: its view, its refusals and the public accessors.

On every bundled profile, round A is played with random actions; round B is dealt from
the same deck except that two cards one player P never saw are exchanged (a card
another player drew is favoured, exchanged for one whose power differs), and the same
actions are replayed. At every step, P must be unable to tell A from B by anything it
may read: its view, the phase as it knows it, its legal actions, the reason of every
refusal of a battery of its actions (illegal ones included), and each public attribute
of the round (see the "What is public" section of :mod:`cambio.round`).
"""

from __future__ import annotations

import random

import pytest

import cambio
from cambio import Action, ActionKind, Card, IllegalActionError, Match, Phase, Round
from test_no_leak import _draw_power_rounds


def public(r: Round) -> tuple[object, ...]:
    """Every public attribute of ``r`` (documented in :mod:`cambio.round`)."""
    return (
        r.rules,
        r.players,
        r.dealer,
        r.starter,
        r.space.size,
        r.phase,
        r.to_act,
        r.current,
        r.caller,
        r.is_over,
        r.turns_taken,
        r.stock_size,
        r.discard_pile,
        r.window_open,
        r.window_won,
        r.reactors,
        r.closing_reason,
        r.penalty_cards,
        r.calls_owed,
        r.result,
    )


def refusal(r: Round, aid: int) -> str | None:
    """The reason ``r`` gives for refusing action ``aid`` (``None`` when it is legal)."""
    try:
        r.verify(aid)
    except IllegalActionError as exc:
        return exc.reason
    return None


def battery(r: Round, player: int, rng: random.Random) -> list[int]:
    """Ids of ``player``: its seven simple actions and a sample of the rest."""
    sp = r.space
    base = player * sp.per_player
    rest = range(base + sp.o_opening, base + sp.per_player)
    return [base + k for k in range(sp.o_opening)] + rng.sample(rest, min(24, len(rest)))


def what_p_sees(r: Round, p: int, ids: list[int]) -> tuple[object, ...]:
    return (
        r.view(p),
        r.phase_seen_by(p),
        r.legal_action_ids(p),
        public(r),
        repr(r),
        [refusal(r, a) for a in ids],
    )


def walk(r: Round, viewer: int, rng: random.Random, steps: int) -> tuple[list[int], set[int]]:
    """Play up to ``steps`` random actions without calling (reactors snap now and then),
    then cut the list right after the last stock draw by a player other than ``viewer``
    (so that drawn card is still private). Returns the actions kept and the ids of the
    cards at positions somebody tried to snap (whether a snap is right is public)."""
    actions: list[int] = []
    snapped: set[int] = set()
    cut = 0
    for _ in range(steps):
        if r.is_over:
            break
        reactors = r.reactors
        if reactors and rng.random() < 0.15:
            who = rng.choice(reactors)
            choices = [a for a in r.legal_actions(who) if a.kind is ActionKind.SNAP]
        else:
            who = r.to_act
            assert who is not None
            legal = r.legal_actions(who)
            choices = [a for a in legal if a.kind not in (ActionKind.CALL, ActionKind.SNAP)]
            choices = choices or legal
        action = rng.choice(choices)
        if action.kind is ActionKind.SNAP:
            snapped.update(r._slots[o][pos - 1] for o, pos in action.positions)
        r.apply(action)
        actions.append(r.space.encode(action))
        if action.kind is ActionKind.DRAW and action.player != viewer:
            cut = len(actions)
    return actions[: cut or len(actions)], snapped


def hidden_pair(r: Round, unseen: list[int]) -> tuple[int, int]:
    """Two of the ``unseen`` card ids of ``r``, of different ranks: a card the player
    to act holds privately when it is one, and one whose power differs when possible."""
    held = [r._drawn] if r._drawn in unseen else []
    power_of = r.rules.powers.power_of
    for i in held + unseen:
        others = [c for c in unseen if r.deck[c].rank != r.deck[i].rank]
        differ = [c for c in others if power_of(r.deck[c]) != power_of(r.deck[i])]
        if differ or others:
            return i, (differ or others)[0]
    raise LookupError("fewer than two unseen ranks")


@pytest.mark.parametrize("name", cambio.available_variants())
def test_hidden_cards_change_nothing_a_player_can_read(name: str) -> None:
    rules = cambio.load_ruleset(name)
    players = rules.players.default
    compared = walked = 0
    for seed in range(4):
        viewer = seed % players
        a = Round(rules, players, seed=seed)
        actions, snapped = walk(a, viewer, random.Random(seed), 25 + 20 * seed)
        # the cards the viewer ever knew, by the engine's record (which the no-leak
        # test checks against the events); copies of one card are told apart here
        a = Round(rules, players, seed=seed)
        bit = 1 << viewer
        ever = {c for c, k in enumerate(a._known) if k & bit}
        for action in actions:
            a.apply(action)
            ever.update(c for c, k in enumerate(a._known) if k & bit)
        unseen = [c for c in range(len(a.deck)) if c not in ever and c not in snapped]
        try:
            i, j = hidden_pair(a, unseen)
        except LookupError:
            continue
        walked += len(actions) + 1
        deck: list[Card] = list(a.deck)
        deck[i], deck[j] = deck[j], deck[i]
        a = Round(rules, players, seed=seed)
        b = Round(rules, players, seed=seed, deck=deck, dealer=a.dealer, starter=a.starter)
        rng = random.Random(seed)
        for step, action in enumerate([*actions, None]):
            ids = battery(a, viewer, rng)
            assert what_p_sees(a, viewer, ids) == what_p_sees(b, viewer, ids), (
                f"{name}: P{viewer} tells the rounds apart after {step} actions"
            )
            compared += 1
            if action is None or not b.can_apply(action):
                break  # B's own play may differ from here (another player's choice)
            a.apply(action)
            b.apply(action)
    # tiny tables (micro: three turns) end their rounds early; others compare 60 or more
    assert compared >= min(60, walked // 2), (compared, walked)


def test_out_of_turn_reason_and_phase_hide_a_drawn_power() -> None:
    """The issue's case: P1 drew a 7 (a power used when drawn) in A, a 5 in B; P0's
    refusal named phase ``power`` in A and ``drawn`` in B, and so did ``Round.phase``."""
    a, b = _draw_power_rounds()
    assert a.phase_seen_by(1) is Phase.POWER and b.phase_seen_by(1) is Phase.DRAWN
    assert a.phase is b.phase is Phase.DRAWN
    for action in (Action.draw(0), Action.call(0), Action.discard(0), Action.peek(0, 1, 1)):
        reasons = [refusal(r, r.space.encode(action)) for r in (a, b)]
        assert reasons[0] == reasons[1] and reasons[0] is not None
        assert "power" not in reasons[0]
    # the drawer itself is told what it knows
    assert "phase power" in str(refusal(a, a.space.encode(Action.call(1))))


def test_a_match_hides_a_drawn_power_too() -> None:
    rules = cambio.load_ruleset("draw-power")
    grids = ["AS", "2S", "3S", "4S", "AH", "2H", "3H", "4H"]
    reasons = []
    for tail in (["5C", "7D", "5D"], ["5C", "5D", "7D"]):
        m = Match(rules, players=2, seed=3, decks=[[*grids, *tail]])
        who = m.to_act
        assert who is not None
        m.apply(Action.draw(who))
        with pytest.raises(IllegalActionError) as info:
            m.apply(Action.call(1 - who))
        reasons.append(info.value.reason)
    assert reasons[0] == reasons[1]

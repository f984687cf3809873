"""Scoring against a second, deliberately plain implementation written from RULES.md.

The oracle below reads the rules the way a person reads the rule pages and shares no
code with :mod:`cambio.scoring`: card values from the value tables, totals, partners'
totals, the lowest total, the tie-break chain, the winner's zero, the caller's penalty
or bonus, and the combination. It is compared with :func:`cambio.scoring.score_round`
on generated hands and tables, and with the results of random finished rounds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

import cambio
from cambio import ActionKind, Card, Round, RuleSet
from cambio.rules import CallRules, CombinationRules, ScoringRules
from cambio.scoring import RoundResult, score_round
from decks import seat_counts
from strategies import TIE_BREAKS, rulesets
from test_properties import default_examples

PROFILES = cambio.available_variants()


# --------------------------------------------------------------------------- the oracle


def card_points(rules: RuleSet, card: Card) -> int:
    """A red card uses the red table when it lists the rank, a black one the black table;
    anything else scores its rank's value."""
    if card.suit in ("H", "D") and card.rank in rules.values.red:
        return rules.values.red[card.rank]
    if card.suit in ("S", "C") and card.rank in rules.values.black:
        return rules.values.black[card.rank]
    return rules.values.rank[card.rank]


def partnerships(rules: RuleSet, players: int) -> list[list[int]]:
    """Seat i plays with seat i + players / size (and so on); alone without teams."""
    size = rules.teams.size
    if size < 2:
        return [[p] for p in range(players)]
    teams = players // size
    return [[t + k * teams for k in range(size)] for t in range(teams)]


@dataclass
class Expected:
    totals: list[int]
    team_totals: list[int]
    winners: list[int]
    scores: list[int]
    caller_lowest: bool | None
    combination: int | None


def oracle(
    rules: RuleSet,
    hands: Sequence[Sequence[Card]],
    caller: int | None,
    empty_winner: int | None,
) -> Expected:
    players = len(hands)
    totals = [sum(card_points(rules, c) for c in hand) for hand in hands]
    teams = partnerships(rules, players)
    team_of = {}
    for t, members in enumerate(teams):
        for p in members:
            team_of[p] = t
    team_totals = [sum(totals[p] for p in members) for members in teams]
    team_cards = [[card_points(rules, c) for p in members for c in hands[p]] for members in teams]
    caller_team = None if caller is None else team_of[caller]

    lowest = min(team_totals)
    tied = [t for t in range(len(teams)) if team_totals[t] == lowest]

    # who wins
    if empty_winner is not None:
        winning = [team_of[empty_winner]]
    else:
        winning = list(tied)
        for step in rules.scoring.tie_break:
            if len(winning) < 2 or step == "share":
                break
            if step == "caller" and caller_team in winning:
                winning = [caller_team]
            elif step == "not-caller" and caller_team in winning:
                winning.remove(caller_team)
            elif step == "lower-cards":
                # highest card first; the first difference decides; a hand that runs out
                # of cards first (all equal so far) is the lower one
                def highest_first(t: int) -> list[int]:
                    return sorted(team_cards[t], reverse=True)

                best = highest_first(winning[0])
                for t in winning[1:]:
                    if highest_first(t) < best:
                        best = highest_first(t)
                winning = [t for t in winning if highest_first(t) == best]
            elif step == "fewer-cards":
                fewest = min(len(team_cards[t]) for t in winning)
                winning = [t for t in winning if len(team_cards[t]) == fewest]

    # the caller: lowest alone, or tied for the lowest when ties count as lowest
    caller_lowest = None
    if caller_team is not None:
        at_lowest = team_totals[caller_team] == lowest
        alone = len(tied) == 1
        caller_lowest = at_lowest and (alone or rules.call.tie_is_lowest)

    team_scores = []
    for t in range(len(teams)):
        score = team_totals[t]
        if t in winning and (rules.scoring.winner_scores_zero or empty_winner is not None):
            score = 0
        if t == caller_team:
            if caller_lowest:
                if rules.call.lowest_scores_zero:
                    score = 0
                score = score + rules.call.bonus
            else:
                score = score + rules.call.penalty
        team_scores.append(score)

    # placement bonuses by the number of players: places by team total, counted as the
    # number of strictly lower totals; a caller tied with others takes the better place
    bonuses = rules.scoring.placement.get(str(players), ())
    for t in range(len(teams)):
        place = sum(1 for u in range(len(teams)) if team_totals[u] < team_totals[t])
        tied_with_caller = caller_team is not None and t != caller_team
        if tied_with_caller and team_totals[caller_team] == team_totals[t]:
            place += 1
        if place < len(bonuses):
            team_scores[t] += bonuses[place]

    # the combination: the first seat whose hand is exactly the combination's ranks
    combination = None
    combo = rules.scoring.combination
    if combo is not None and combo.ranks:
        for p, hand in enumerate(hands):
            if sorted(c.rank for c in hand) == sorted(combo.ranks):
                combination = p
                break
    if combination is not None:
        assert combo is not None
        holder = team_of[combination]
        team_scores = [combo.holder if t == holder else combo.others for t in range(len(teams))]
        winning = [holder]

    return Expected(
        totals=totals,
        team_totals=team_totals if rules.teams.size > 1 else [],
        winners=sorted(p for t in winning for p in teams[t]),
        scores=[team_scores[team_of[p]] for p in range(players)],
        caller_lowest=caller_lowest,
        combination=combination,
    )


def check(
    rules: RuleSet,
    hands: Sequence[Sequence[Card]],
    result: RoundResult,
    caller: int | None,
    empty_winner: int | None,
) -> None:
    want = oracle(rules, hands, caller, empty_winner)
    _ = want  # compared field by field below
    assert list(result.totals) == want.totals
    assert [sum(h.value for h in hand) for hand in result.hands] == want.totals
    assert list(result.team_totals) == want.team_totals
    assert list(result.winners) == want.winners
    assert list(result.scores) == want.scores
    assert result.caller_lowest == want.caller_lowest
    assert result.combination == want.combination
    assert result.caller == caller


# --------------------------------------------------------------------------- generated hands


@st.composite
def scoring_rules(draw: st.DrawFn) -> RuleSet:
    """A valid table, with its scoring and calling rules often set to the tricky cases."""
    rules = draw(st.one_of(st.sampled_from(PROFILES).map(cambio.load_ruleset), rulesets()))
    if draw(st.booleans()):
        call = CallRules(
            penalty=draw(st.sampled_from((0, 5, 10, -3))),
            bonus=draw(st.sampled_from((0, -10, 4))),
            tie_is_lowest=draw(st.booleans()),
            lowest_scores_zero=draw(st.booleans()),
        )
        rules = attrs.evolve(rules, call=call)
    if draw(st.booleans()):
        ranks = rules.deck.rank_names()
        combo = None
        if draw(st.booleans()):
            combo = CombinationRules(
                ranks=tuple(draw(st.lists(st.sampled_from(ranks), min_size=1, max_size=4))),
                holder=draw(st.integers(-5, 5)),
                others=draw(st.integers(0, 60)),
            )
        scoring = ScoringRules(
            winner_scores_zero=draw(st.booleans()),
            tie_break=tuple(draw(st.lists(st.sampled_from(TIE_BREAKS), max_size=5))),
            combination=combo,
        )
        rules = attrs.evolve(rules, scoring=scoring)
    assert cambio.check_rules(rules) == []
    return rules


@st.composite
def scoring_cases(
    draw: st.DrawFn,
) -> tuple[RuleSet, list[list[Card]], int | None, int | None]:
    """A table, final hands (ties made likely), a caller and maybe an emptied grid."""
    rules = draw(scoring_rules())
    players = draw(st.sampled_from(seat_counts(rules)))
    deck = rules.deck.cards()
    card = st.sampled_from(deck)
    most = rules.grid.max_positions
    # the table's combination as cards, when the deck holds every rank of it (a custom
    # deck may name a rank with no card)
    by_rank = {c.rank: c for c in reversed(deck)}
    combo = rules.scoring.combination
    combination_cards = (
        [by_rank[r] for r in combo.ranks]
        if combo is not None and all(r in by_rank for r in combo.ranks)
        else None
    )
    hands: list[list[Card]] = []
    for p in range(players):
        how = draw(st.sampled_from([0, 1, 2, 3, 4, 4, 4, 5, 6])) if hands else 0
        if how == 4:  # the same cards as the lowest hand so far: a tie for the lowest
            low = min(range(p), key=lambda q: sum(rules.value(c) for c in hands[q]))
            hand = list(draw(st.permutations(hands[low])))
        elif how == 1:  # the same cards as an earlier hand, in another order
            hand = list(draw(st.permutations(hands[draw(st.integers(0, p - 1))])))
        elif how == 2:  # an earlier hand plus or minus zero-point cards
            hand = list(hands[draw(st.integers(0, p - 1))])
            zeros = [c for c in deck if rules.value(c) == 0]
            if zeros and len(hand) < most and draw(st.booleans()):
                hand.append(draw(st.sampled_from(zeros)))
            elif any(rules.value(c) == 0 for c in hand):
                hand.remove(next(c for c in hand if rules.value(c) == 0))
        elif how == 3 and combination_cards is not None:
            hand = list(combination_cards)
        else:
            hand = draw(st.lists(card, max_size=min(most, 6)))
        hands.append(hand[:most])
    totals = [sum(rules.value(c) for c in hand) for hand in hands]
    lowest = [p for p in range(players) if totals[p] == min(totals)]
    caller = draw(st.none() | st.integers(0, players - 1) | st.sampled_from(lowest))
    empty_winner = None
    empty = [p for p, hand in enumerate(hands) if not hand]
    if empty and bool(draw(st.booleans())):
        empty_winner = draw(st.sampled_from(empty))
    return rules, hands, caller, empty_winner


@settings(max_examples=max(default_examples(), 400))
@given(scoring_cases())
def test_score_round_agrees_with_the_plain_oracle(
    case: tuple[RuleSet, list[list[Card]], int | None, int | None],
) -> None:
    rules, hands, caller, empty_winner = case
    result = score_round(
        rules,
        [list(enumerate(hand, start=1)) for hand in hands],
        reason="call" if caller is not None else "stock",
        caller=caller,
        empty_winner=empty_winner,
    )
    check(rules, hands, result, caller, empty_winner)
    assert [[h.position for h in hand] for hand in result.hands] == [
        list(range(1, len(hand) + 1)) for hand in hands
    ]


# --------------------------------------------------------------------------- worked cases


def _table(**scoring: object) -> RuleSet:
    return attrs.evolve(
        RuleSet(),
        scoring=attrs.evolve(ScoringRules(), **scoring),  # type: ignore[arg-type]
    )


def _cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


def test_lower_cards_joker_and_ace_beat_red_king_and_two() -> None:
    rules = attrs.evolve(
        cambio.load_ruleset("penalty"),
        scoring=ScoringRules(tie_break=("lower-cards", "share")),
    )
    hands = [_cards("Joker AS"), _cards("KH 2S"), _cards("10S 9S")]
    result = score_round(rules, [list(enumerate(h, 1)) for h in hands], reason="stock")
    assert result.totals == (1, 1, 19)
    assert result.winners == (0,)
    check(rules, hands, result, None, None)


def test_elimination_caller_tied_for_lowest_wins_and_scores_zero() -> None:
    rules = cambio.load_ruleset("elimination")
    hands = [_cards("AS 2S"), _cards("2C AC"), _cards("KS QS")]
    result = score_round(rules, [list(enumerate(h, 1)) for h in hands], reason="call", caller=1)
    assert result.winners == (1,)
    assert result.scores == (3, 0, 12)
    check(rules, hands, result, 1, None)


def test_snap_caller_tied_pays_the_penalty() -> None:
    rules = cambio.load_ruleset("snap")
    hands = [_cards("AS 2S"), _cards("2C AC"), _cards("KS QS")]
    result = score_round(rules, [list(enumerate(h, 1)) for h in hands], reason="call", caller=1)
    assert result.caller_lowest is False
    assert result.scores == (3, 13, 20)
    assert result.winners == (0, 1)
    check(rules, hands, result, 1, None)


def test_teams_combine_partners() -> None:
    rules = cambio.load_ruleset("teams")
    hands = [_cards("AS"), _cards("5S"), _cards("2S"), _cards("3S")]
    result = score_round(rules, [list(enumerate(h, 1)) for h in hands], reason="call", caller=2)
    assert result.team_totals == (3, 8)
    assert result.winners == (0, 2)
    assert result.scores == (0, 8, 0, 8)
    check(rules, hands, result, 2, None)


# --------------------------------------------------------------------------- random rounds


def _finish(rules: RuleSet, players: int, seed: int, call_after: int) -> Round:
    rng = random.Random(seed)
    r = Round(rules, players, seed=seed)
    decode = r.space.decode
    for _ in range(20_000):
        if r.is_over:
            break
        reactors = r.reactors
        if reactors and rng.random() < 0.1:
            p = rng.choice(reactors)
            r.apply(
                rng.choice([a for a in r.legal_action_ids(p) if decode(a).kind is ActionKind.SNAP])
            )
            continue
        who = r.to_act
        assert who is not None
        ids = [a for a in r.legal_action_ids(who) if decode(a).kind is not ActionKind.SNAP]
        calls = [a for a in ids if decode(a).kind is ActionKind.CALL]
        if calls and r.turns_taken >= call_after:
            r.apply(calls[0])
            continue
        draws = [a for a in ids if decode(a).kind is ActionKind.DRAW]
        quiet = [a for a in ids if decode(a).kind is not ActionKind.CALL] or ids
        r.apply(draws[0] if draws and r.turns_taken >= call_after else rng.choice(quiet))
    return r


@given(
    st.one_of(st.sampled_from(PROFILES).map(cambio.load_ruleset), rulesets()),
    st.data(),
)
def test_finished_rounds_score_as_the_oracle_says(rules: RuleSet, data: st.DataObject) -> None:
    players = data.draw(st.sampled_from(seat_counts(rules)), label="players")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    call_after = data.draw(st.integers(0, 30), label="call_after")
    if not rules.call.allowed and not rules.turn.max_turns and rules.stock.on_empty == "recycle":
        # no call, no turn cap and recycling: nothing ends such a round; cap it here
        rules = attrs.evolve(rules, turn=attrs.evolve(rules.turn, max_turns=60))
    r = _finish(rules, players, seed, call_after)
    assert r.is_over and r.result is not None
    hands = [[c for c in r.hand(p) if c is not None] for p in range(players)]
    empty_winner = None
    if r.result.reason == "empty-grid" and rules.snap.empty_grid == "win":
        # "end" ends the round with ordinary scoring (found by a run with teams of two)
        (empty_winner,) = [p for p, hand in enumerate(hands) if not hand]
    check(rules, hands, r.result, r.caller, empty_winner)
    positions = [[i + 1 for i, c in enumerate(r.hand(p)) if c is not None] for p in range(players)]
    assert [[h.position for h in hand] for hand in r.result.hands] == positions

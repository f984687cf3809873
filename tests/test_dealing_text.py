"""What the generated profile pages say about dealing and starting is what the engine does.

Every clause of every bundled table's generated page (``docs/profiles/NAME.md``: the
profile's own notes, the table of differences from its parent and the quick reference)
that speaks of the dealer, the deal or who starts is read into claims (the first dealer
is the last seat; seat 0 starts; the player left of the dealer starts; the deal passes
to the left each round; the worst hand of the previous round starts), and each claim is
checked against matches dealt and played by the engine. A clause about dealing that
none of the claims below recognises fails the test, so a new way of saying it must be
taught here (and is then checked) rather than slip through unread. The pages are
generated here from ``variants/``; ``tests/test_docs.py`` keeps the committed pages
equal to them.
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections.abc import Callable, Iterator

import attrs
import pytest

from cambio import Match, RuleSet, load_ruleset
from cambio._reference import profile_markdown
from cambio.events import EventKind
from cambio.loading import available_variants
from cambio.match import MatchEventKind

SEEDS = range(8)


# --------------------------------------------------------------------------- the engine


@attrs.frozen
class Dealt:
    """One round as the engine dealt and began it, in match seats."""

    players: int
    number: int
    seats: tuple[int, ...]
    dealer: int
    first_turn: int
    previous_totals: dict[int, int] | None  # the hand totals of the round before
    previous_first_turn: int | None
    previous_winners: frozenset[int] | None = None  # the winners of the round before


def _first_turn(match: Match, rng: random.Random) -> int:
    """The match seat that takes the current round's first turn (opening peeks that
    need a choice are made at random first)."""
    while True:
        for event in match.round.events:
            if event.kind == EventKind.TURN:
                return match.round_seats[event.player]
        match.apply(rng.choice(match.legal_action_ids()))


def _several_rounds(rules: RuleSet) -> RuleSet:
    """A one-round table as a two-round match: the deal passes and the starter is chosen
    by the same code, so later rounds can be checked on it too."""
    if rules.match.end != "single":
        return rules
    return attrs.evolve(rules, match=attrs.evolve(rules.match, end="rounds", rounds=2))


@functools.cache
def deals(name: str) -> tuple[Dealt, ...]:
    """The first two rounds of matches of table ``name`` at its fewest, usual and most
    players, for several seeds, played with random legal actions."""
    rules = _several_rounds(load_ruleset(name))
    counts = sorted({rules.players.min, rules.players.default, rules.players.max})
    out: list[Dealt] = []
    for players in counts:
        for seed in SEEDS:
            match = Match(rules, players=players, seed=seed)
            rng = random.Random(seed)
            previous: tuple[dict[int, int], int, frozenset[int]] | None = None
            while True:
                first = _first_turn(match, rng)
                assert match.round.dealer == match.round_seats.index(match.dealer)
                out.append(
                    Dealt(
                        players,
                        match.round_number,
                        match.round_seats,
                        match.dealer,
                        first,
                        previous[0] if previous else None,
                        previous[1] if previous else None,
                        previous[2] if previous else None,
                    )
                )
                if match.round_number == 2:
                    break
                number = match.round_number
                while not match.is_over and match.round_number == number:
                    match.apply(rng.choice(match.legal_action_ids()))
                if match.is_over:
                    break
                record = match.records[-1]
                totals = dict(zip(record.players, record.result.totals, strict=True))
                winners = frozenset(record.players[w] for w in record.result.winners)
                previous = (totals, first, winners)
    assert any(d.number == 2 for d in out), f"{name}: no second round was ever dealt"
    return tuple(out)


def _left_of(dealt: Dealt, seat: int) -> int:
    """The next seat clockwise (to the left) after ``seat`` among the round's players."""
    for step in range(1, dealt.players + 1):
        nxt = (seat + step) % dealt.players
        if nxt in dealt.seats:
            return nxt
    raise AssertionError("no seat")


def _first_dealer_drew_highest(name: str) -> Iterator[str]:
    rules = load_ruleset(name)
    order = {rank: i for i, rank in enumerate(rules.deck.rank_names())}
    for players in sorted({rules.players.min, rules.players.max}):
        for seed in SEEDS:
            match = Match(rules, players=players, seed=seed)
            chosen = [e for e in match.events if e.kind == MatchEventKind.DEALER]
            if chosen[-1].note != "high card":
                yield f"{players} players, seed {seed}: the dealer was {chosen[-1].note!r}"
                continue
            draws = [e for e in match.events if e.kind == MatchEventKind.HIGH_CARD]
            last = [e for e in draws if e.note == draws[-1].note]
            best = max(order[e.cards[0].rank] for e in last)
            top = [e.player for e in last if order[e.cards[0].rank] == best]
            if top != [match.dealer]:
                yield f"{players} players, seed {seed}: {match.dealer} dealt, {top} drew highest"


# --------------------------------------------------------------------------- claims

Check = Callable[[str], list[str]]
"""A claim's check: the table's name in, what the engine did otherwise out."""


def _each(test: Callable[[Dealt], bool], rounds: str = "all") -> Check:
    def check(name: str) -> list[str]:
        wrong = []
        for dealt in deals(name):
            if rounds == "first" and dealt.number != 1:
                continue
            if rounds == "later" and dealt.number == 1:
                continue
            if not test(dealt):
                wrong.append(f"{dealt}")
        return wrong[:3]

    return check


def first_dealer(how: str) -> Check:
    if how == "the last seat":
        return _each(lambda d: d.dealer == d.players - 1, "first")
    if how == "the first seat":
        return _each(lambda d: d.dealer == 0, "first")
    if how == "the high card of a draw":
        return lambda name: list(_first_dealer_drew_highest(name))
    assert how == "random"

    def varies(name: str) -> list[str]:
        dealers = {(d.players, d.dealer) for d in deals(name) if d.number == 1}
        by_count = {p: {s for q, s in dealers if q == p} for p, _ in dealers}
        return [f"{p} players: always seat {s}" for p, s in by_count.items() if len(s) < 2]

    return varies


def first_seat_starts(seat: int, *, left_of_dealer: bool) -> Check:
    """Seat ``seat`` takes the first round's first turn (and sits left of its dealer)."""
    return _each(
        lambda d: d.first_turn == seat and (not left_of_dealer or seat == _left_of(d, d.dealer)),
        "first",
    )


def left_of_dealer_starts(rounds: str) -> Check:
    return _each(lambda d: d.first_turn == _left_of(d, d.dealer), rounds)


def _worst_hand(d: Dealt) -> bool:
    assert d.previous_totals is not None and d.previous_first_turn is not None
    totals = {s: t for s, t in d.previous_totals.items() if s in d.seats}
    worst = max(totals.values())
    for step in range(d.players):  # a tie: the first clockwise from the last starter
        seat = (d.previous_first_turn + step) % d.players
        if totals.get(seat) == worst:
            return d.first_turn == seat
    raise AssertionError("no worst hand")


def _last_winner(tie: str) -> Callable[[Dealt], bool]:
    """The previous round's winner starts; of tied winners, the lowest seat or the first
    clockwise after the dealer (a winner no longer playing: left of the dealer)."""

    def test(d: Dealt) -> bool:
        assert d.previous_winners is not None
        winners = d.previous_winners & set(d.seats)
        if not winners:
            return d.first_turn == _left_of(d, d.dealer)
        if tie == "the lowest seat of tied winners":
            return d.first_turn == min(winners)
        after = next(
            s for k in range(1, d.players + 1) if (s := (d.dealer + k) % d.players) in winners
        )
        return d.first_turn == after

    return test


def deal_passes_left() -> Check:
    def check(name: str) -> list[str]:
        rounds = deals(name)
        wrong = []
        for first, second in itertools.pairwise(rounds):
            if second.number == 2 and second.players == first.players:
                expected = _left_of(second, first.dealer)
                if second.dealer != expected:
                    wrong.append(f"{second}: round 1 dealt by {first.dealer}")
        return wrong

    return check


_DEALER = r"(the last seat|the first seat|the high card of a draw|a random (?:player|seat))"

CLAIMS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Check]]] = [
    (
        re.compile(rf"\bfirst dealer(?: is|:)\s+{_DEALER}", re.I),
        lambda m: first_dealer("random" if m[1].startswith("a random") else m[1].lower()),
    ),
    (re.compile(r"\bfirst round: a random dealer\b", re.I), lambda m: first_dealer("random")),
    (
        re.compile(r"\bso seat (\d+)( \(left of the dealer\))? starts\b", re.I),
        lambda m: first_seat_starts(int(m[1]), left_of_dealer=bool(m[2])),
    ),
    (
        re.compile(
            r"\b(?:who starts|first to play): the player to the dealer's left\b"
            r"|\b(?:the player )?left of the dealer starts(?: each round)?\b"
            r"|\b(?:the dealer|it) only picks the starter\b",
            re.I,
        ),
        lambda m: left_of_dealer_starts("all"),
    ),
    (
        re.compile(
            r"\(the first round: left of the dealer\)|\(so a random starter, left of the dealer\)",
            re.I,
        ),
        lambda m: left_of_dealer_starts("first"),
    ),
    (
        re.compile(
            r"\b(?:who starts|first to play): the worst hand of the previous round\b"
            r"|\blater rounds: the player with the worst hand of the previous round starts\b",
            re.I,
        ),
        lambda m: _each(_worst_hand, "later"),
    ),
    (
        re.compile(
            r"\b(?:who starts|first to play): the winner of the previous round, "
            r"(the lowest seat of tied winners|the first tied winner after the dealer)",
            re.I,
        ),
        lambda m: _each(_last_winner(m[1].lower()), "later"),
    ),
    (
        re.compile(
            r"\bthe deal (?:passes to the left each round|rotates)\b"
            r"|\bthe dealer rotates each round\b",
            re.I,
        ),
        lambda m: deal_passes_left(),
    ),
]
"""Each way the pages say who deals or starts, and the check of what it says."""

ABOUT_DEALING = re.compile(
    r"\bdeal(?:s|er|ers)?\b|\bstart(?:s|er|ers)?\b|\bfirst to play\b|\b(?:plays|goes) first\b",
    re.I,
)
"""Words that make a clause a statement about who deals or starts."""

OTHER_SENSES = re.compile(
    r"\bat the start of (?:your|one's)(?: own)? turn\b"  # when a call or re-peek happens
    r"|\bstarts? (?:unknown|hidden)\b|\bseen at the start\b"  # what a player knows
    r"|\bthe (?:card the )?deal turns face up\b"  # the dealt discard, a snapping matter
    r"|\bthe smallest deal\b|\bdeal included\b"  # the cards dealt, not who deals them
    r"|\bfrom the deal on\b"  # when the dealt discard may be snapped
    r"|\b(?:in seat order )?from the starter\b|\bthe starter may stick\b",
    re.I,
)
"""The same words in other senses: the start of a turn, cards unknown from the start,
the order in which the dealt discard may be snapped."""


# --------------------------------------------------------------------------- the pages


def _plain(text: str) -> str:
    """Markdown links and inline code as plain words."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("`", "")


def statements(name: str, page: str) -> Iterator[tuple[str, str]]:
    """Each clause of ``page`` as ``(table it speaks of, clause)``: a row of the table of
    differences speaks of the parent in its middle cell; fenced blocks other than the
    quick reference (positions drawn by ``cambio show``, TOML) are the engine's own
    output or rule text, not sentences."""
    units: list[tuple[str, str]] = []
    base = section = name
    fenced = False
    for line in page.splitlines():
        stripped = line.strip()
        if line.startswith("## "):
            section = line[3:]
            found = re.match(
                r"How it differs from (?:its parent|the default table), (\S+)", section
            )
            base = found[1] if found else name
            continue
        if stripped.startswith("```"):
            fenced = not fenced
            continue
        quick = fenced and section == "Quick reference"
        if fenced and not quick:
            continue
        if stripped.startswith("|"):
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            if len(cells) == 3 and cells[0] != "rule" and set(cells[0]) != {"-"}:
                units += [(base, f"{cells[0]}: {cells[1]}"), (name, f"{cells[0]}: {cells[2]}")]
        elif quick and line.startswith("    ") and units:  # a wrapped quick-reference item
            units[-1] = (units[-1][0], f"{units[-1][1]} {stripped}")
        elif stripped:
            units.append((name, stripped.removeprefix("- ")))
    for table, unit in units:
        for clause in re.split(r"(?<=[.;])\s+", _plain(unit)):
            yield table, clause


def claims(name: str, page: str) -> Iterator[tuple[str, str, Check]]:
    """Each claim about dealing or starting in ``page``: the table it speaks of, its
    clause and its check. A clause about dealing left unread raises AssertionError."""
    for table, clause in statements(name, page):
        rest = OTHER_SENSES.sub(" ", clause)
        if not ABOUT_DEALING.search(rest):
            continue
        for pattern, make in CLAIMS:
            for found in pattern.finditer(rest):
                yield table, clause, make(found)
            rest = pattern.sub(" ", rest)
        assert not ABOUT_DEALING.search(rest), (
            f"{name}: a statement about dealing or starting that no claim reads: {clause!r} "
            f"(left unread: {rest!r})"
        )


def mismatches(name: str, page: str) -> list[str]:
    found = []
    for table, clause, check in claims(name, page):
        wrong = check(table)
        if wrong:
            found.append(f"{table}: {clause!r} is not what the engine does: {wrong}")
    return found


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("name", available_variants())
def test_every_statement_about_dealing_matches_the_engine(name: str) -> None:
    assert not mismatches(name, profile_markdown(name))


def test_the_pages_do_state_who_deals_and_starts() -> None:
    """Every page says something checkable (the quick reference always does)."""
    for name in available_variants():
        page = profile_markdown(name)
        found = list(claims(name, page))
        assert len(found) >= 2, name


@pytest.mark.parametrize(
    ("name", "sentence"),
    [
        (
            "practice",
            "The first dealer is the first seat (one round only, so it only picks the starter).",
        ),
        ("penalty", "The first dealer is the first seat; the player left of the dealer starts."),
        ("penalty", "First dealer: the high card of a draw."),
        ("snap", "First to play: the player to the dealer's left."),
        ("practice", "The first dealer is the last seat, so seat 1 starts."),
    ],
)
def test_a_sentence_the_engine_contradicts_is_caught(name: str, sentence: str) -> None:
    page = f"## How it maps onto the RuleSet\n\n- {sentence}\n"
    assert mismatches(name, page)


def test_a_sentence_about_dealing_that_no_claim_reads_fails() -> None:
    page = "## How it maps onto the RuleSet\n\n- The youngest player deals first.\n"
    with pytest.raises(AssertionError, match="no claim reads"):
        list(claims("practice", page))

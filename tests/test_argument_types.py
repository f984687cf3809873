"""A wrongly typed argument gets the same error, with the same message, in both builds.

The compiled build (``CAMBIO_COMPILE=1 pip install .``, see ``setup.py``) compiles some
modules with mypyc, whose functions check their arguments' types on entry and refuse a
wrong one with mypyc's own words. So every public function of those modules types the
plain values a caller passes as :class:`typing.SupportsIndex` or
:data:`cambio.arguments.Arg` (types mypyc leaves unchecked) and checks them itself.

Two halves:

- the table below calls every public entry point with a wrongly typed (or out of
  range) argument and pins the error's type and exact message; ``.ci/run`` runs this
  file against both builds, so both must give these very errors;
- a source check that no public function or method of a compiled module has a
  parameter that mypyc would check on entry (a bare ``int``, ``bool``, ``float``,
  ``str``, ``bytes`` or a compiled class), so a new parameter cannot slip past the
  table unnoticed.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from cambio import Card, Round, RuleSet
from cambio.arguments import flag, items, number, optional_whole, text, whole
from cambio.bots import RandomBot, play_round
from cambio.cards import build_deck, card_to_json
from cambio.derived import shuffled_range
from cambio.determinize import InfoSet, determinize
from cambio.errors import IllegalActionError, PositionError
from cambio.scoring import placements, score_hands, score_round, team_of, teams_of
from cambio.simulate import play_chunk, simulate, wilson_interval

ROOT = Path(__file__).resolve().parent.parent
R = RuleSet()


def _round() -> Round:
    return Round(R, 3, seed=1)


def _duel() -> Round:
    return Round(R, 2, seed=1)


# (what is called, the call, the error's type, its exact message)
CASES: list[tuple[str, Callable[[], object], type[Exception], str]] = [
    # Round()
    (
        "Round(rules=5)",
        lambda: Round(5, 3),
        TypeError,
        "expected a RuleSet or a profile name, got 5",
    ),
    (
        "Round(players='3')",
        lambda: Round(R, "3"),
        TypeError,
        "players must be a whole number, got '3'",
    ),
    (
        "Round(players=2.0)",
        lambda: Round(R, 2.0),
        TypeError,
        "players must be a whole number, got 2.0",
    ),
    (
        "Round(players=True)",
        lambda: Round(R, True),
        TypeError,
        "players must be a whole number, got True",
    ),
    (
        "Round(players=9)",
        lambda: Round(R, 9),
        ValueError,
        "the custom table seats 2 to 6 players, not 9",
    ),
    (
        "Round(seed='s')",
        lambda: Round(R, 3, seed="s"),
        TypeError,
        "seed must be a whole number, got 's'",
    ),
    (
        "Round(seed=1.5)",
        lambda: Round(R, 3, seed=1.5),
        TypeError,
        "seed must be a whole number, got 1.5",
    ),
    (
        "Round(dealer='0')",
        lambda: Round(R, 3, seed=1, dealer="0"),
        TypeError,
        "dealer must be a whole number, got '0'",
    ),
    (
        "Round(dealer=9)",
        lambda: Round(R, 3, seed=1, dealer=9),
        ValueError,
        "dealer must be a seat from 0 to 2, got 9",
    ),
    (
        "Round(starter=1.0)",
        lambda: Round(R, 3, seed=1, starter=1.0),
        TypeError,
        "starter must be a whole number, got 1.0",
    ),
    (
        "Round(deck=5)",
        lambda: Round(R, 3, seed=1, deck=5),
        TypeError,
        "deck must be a list of cards or card texts, got 5",
    ),
    (
        "Round(deck='KH')",
        lambda: Round(R, 3, seed=1, deck="KH"),
        TypeError,
        "deck must be a list of cards or card texts, got 'KH'",
    ),
    (
        "Round(deck=[5])",
        lambda: Round(R, 3, seed=1, deck=[5]),
        TypeError,
        "expected a Card or a card text such as 'KH', got 5",
    ),
    (
        "Round.replay(players='2')",
        lambda: Round.replay(R, [], players="2"),
        TypeError,
        "players must be a whole number, got '2'",
    ),
    (
        "Round.replay(actions=5)",
        lambda: Round.replay(R, 5, players=2, seed=1),
        TypeError,
        "actions must be a list of actions or action ids, got 5",
    ),
    # Round's methods
    (
        "phase_seen_by('0')",
        lambda: _round().phase_seen_by("0"),
        TypeError,
        "player must be a whole number, got '0'",
    ),
    ("phase_seen_by(9)", lambda: _round().phase_seen_by(9), ValueError, "there is no player 9"),
    ("hand('0')", lambda: _round().hand("0"), TypeError, "player must be a whole number, got '0'"),
    ("hand(-1)", lambda: _round().hand(-1), ValueError, "there is no player -1"),
    (
        "legal_action_ids('0')",
        lambda: _round().legal_action_ids("0"),
        TypeError,
        "player must be a whole number, got '0'",
    ),
    (
        "legal_action_ids(0.0)",
        lambda: _round().legal_action_ids(0.0),
        TypeError,
        "player must be a whole number, got 0.0",
    ),
    (
        "legal_snap_ids('0')",
        lambda: _round().legal_snap_ids("0"),
        TypeError,
        "player must be a whole number, got '0'",
    ),
    (
        "legal_actions('0')",
        lambda: _round().legal_actions("0"),
        TypeError,
        "player must be a whole number, got '0'",
    ),
    (
        "legal_actions(kind=5)",
        lambda: _round().legal_actions(0, kind=5),
        TypeError,
        "kind must be an action kind, its text, or several of them, got 5",
    ),
    (
        "legal_action_mask(None)",
        lambda: _round().legal_action_mask(None),
        TypeError,
        "player must be a whole number, got None",
    ),
    ("view('0')", lambda: _round().view("0"), TypeError, "player must be a whole number, got '0'"),
    (
        "view(True)",
        lambda: _round().view(True),
        TypeError,
        "player must be a whole number, got True",
    ),
    ("view(3)", lambda: _round().view(3), ValueError, "there is no player 3"),
    (
        "apply('0')",
        lambda: _round().apply("0"),
        IllegalActionError,
        "illegal action 0: an action is an Action or an action id",
    ),
    (
        "apply(None)",
        lambda: _round().apply(None),
        IllegalActionError,
        "illegal action None: an action is an Action or an action id",
    ),
    (
        "verify([])",
        lambda: _round().verify([]),
        IllegalActionError,
        "illegal action []: an action is an Action or an action id",
    ),
    (
        "resolve_snaps(5)",
        lambda: _round().resolve_snaps(5),
        TypeError,
        "actions must be a list of actions or action ids, got 5",
    ),
    (
        "from_json(verify=1)",
        lambda: Round.from_json(_round().to_json(), verify=1),
        TypeError,
        "verify must be True or False, got 1",
    ),
    (
        "from_dict(verify='yes')",
        lambda: Round.from_dict(_round().to_dict(), verify="yes"),
        TypeError,
        "verify must be True or False, got 'yes'",
    ),
    (
        "from_position(text=5)",
        lambda: Round.from_position(R, 5),
        PositionError,
        "column 1: expected a position as text, found int",
    ),
    (
        "from_position(rules=5)",
        lambda: Round.from_position(5, "x"),
        TypeError,
        "expected a RuleSet or a profile name, got 5",
    ),
    # cards
    ("Card.parse(5)", lambda: Card.parse(5), TypeError, "text must be text, got 5"),
    ("card_to_json('KH')", lambda: card_to_json("KH"), TypeError, "card must be a Card, got 'KH'"),
    (
        "build_deck(decks='2')",
        lambda: build_deck(decks="2"),
        TypeError,
        "decks must be a whole number, got '2'",
    ),
    (
        "build_deck(jokers=1.0)",
        lambda: build_deck(jokers=1.0),
        TypeError,
        "jokers must be a whole number, got 1.0",
    ),
    (
        "shuffled_range('1', 3)",
        lambda: shuffled_range("1", 3),
        TypeError,
        "seed must be a whole number, got '1'",
    ),
    (
        "shuffled_range(1, 3.0)",
        lambda: shuffled_range(1, 3.0),
        TypeError,
        "m must be a whole number, got 3.0",
    ),
    # views and events
    (
        "view.positions_of('0')",
        lambda: _round().view(0).positions_of("0"),
        TypeError,
        "owner must be a whole number, got '0'",
    ),
    (
        "view.positions_of(7)",
        lambda: _round().view(0).positions_of(7),
        ValueError,
        "there is no player 7",
    ),
    (
        "view.known(0, '1')",
        lambda: _round().view(0).known(0, "1"),
        TypeError,
        "position must be a whole number, got '1'",
    ),
    (
        "view.known(0, 0)",
        lambda: _round().view(0).known(0, 0),
        ValueError,
        "position must be from 1 to 8, got 0",
    ),
    (
        "event.as_seen_by('0')",
        lambda: _round().events[0].as_seen_by("0"),
        TypeError,
        "player must be a whole number, got '0'",
    ),
    # scoring
    (
        "teams_of(players='4')",
        lambda: teams_of(R, "4"),
        TypeError,
        "players must be a whole number, got '4'",
    ),
    (
        "team_of(player='1')",
        lambda: team_of(R, 4, "1"),
        TypeError,
        "player must be a whole number, got '1'",
    ),
    (
        "placements(caller='0')",
        lambda: placements([1, 2], caller="0"),
        TypeError,
        "caller must be a whole number, got '0'",
    ),
    (
        "score_hands(caller='0')",
        lambda: score_hands(R, [["KH"], ["QS"]], caller="0"),
        TypeError,
        "caller must be a whole number, got '0'",
    ),
    (
        "score_hands(caller=2)",
        lambda: score_hands(R, [["KH"], ["QS"]], caller=2),
        ValueError,
        "caller must be a seat from 0 to 1, got 2",
    ),
    (
        "score_hands(reason=5)",
        lambda: score_hands(R, [["KH"], ["QS"]], reason=5),
        TypeError,
        "reason must be text, got 5",
    ),
    (
        "score_round(reason=5)",
        lambda: score_round(R, [[(1, Card("K", "H"))]], reason=5),
        TypeError,
        "reason must be text, got 5",
    ),
    (
        "score_round(caller='0')",
        lambda: score_round(R, [[(1, Card("K", "H"))]], reason="call", caller="0"),
        TypeError,
        "caller must be a whole number, got '0'",
    ),
    # bots
    (
        "play_round('practice')",
        lambda: play_round("practice", [RandomBot(1), RandomBot(2)]),
        TypeError,
        "rnd must be a Round, got 'practice'",
    ),
    (
        "play_round(bots=5)",
        lambda: play_round(_duel(), 5),
        TypeError,
        "bots must be a list of bots, one per seat, got 5",
    ),
    (
        "play_round(seed='x')",
        lambda: play_round(_duel(), [RandomBot(1), RandomBot(2)], seed="x"),
        TypeError,
        "seed must be a whole number, got 'x'",
    ),
    (
        "play_round(reset=1)",
        lambda: play_round(_duel(), [RandomBot(1), RandomBot(2)], reset=1),
        TypeError,
        "reset must be True or False, got 1",
    ),
    (
        "play_round(max_decisions='9')",
        lambda: play_round(_duel(), [RandomBot(1), RandomBot(2)], max_decisions="9"),
        TypeError,
        "max_decisions must be a whole number, got '9'",
    ),
    (
        "RandomBot(seed=[1])",
        lambda: RandomBot([1]),
        TypeError,
        "seed must be a number, a text or None, got [1]",
    ),
    (
        "RandomBot(never_call=1)",
        lambda: RandomBot(1, never_call=1),
        TypeError,
        "never_call must be True or False, got 1",
    ),
    (
        "RandomBot(snap_rate='a')",
        lambda: RandomBot(1, snap_rate="a"),
        TypeError,
        "snap_rate must be a number, got 'a'",
    ),
    (
        "RandomBot(snap_rate=2)",
        lambda: RandomBot(1, snap_rate=2),
        ValueError,
        "snap_rate must be between 0 and 1, got 2.0",
    ),
    (
        "RandomBot.reset(seat='0')",
        lambda: RandomBot(1).reset("0", R, None),
        TypeError,
        "seat must be a whole number, got '0'",
    ),
    (
        "RandomBot.reset(seed=1.5)",
        lambda: RandomBot(1).reset(0, R, 1.5),
        TypeError,
        "seed must be a whole number, got 1.5",
    ),
    (
        "RandomBot.act(legal=[])",
        lambda: RandomBot(1).act(None, []),
        ValueError,
        "no legal action to choose from",
    ),
    (
        "RandomBot.act(view=5, legal=[])",
        lambda: RandomBot(1).act(5, []),
        ValueError,
        "no legal action to choose from",
    ),
    # simulate
    (
        "play_chunk(5)",
        lambda: play_chunk(5),
        TypeError,
        "task must be a ChunkTask, got 5",
    ),
    (
        "simulate(rules=5)",
        lambda: simulate(5, 2, ["random"] * 2, 2, 1),
        TypeError,
        "expected a RuleSet or a profile name, got 5",
    ),
    (
        "simulate(players='2')",
        lambda: simulate(R, "2", ["random"] * 2, 2, 1),
        TypeError,
        "players must be a whole number, got '2'",
    ),
    (
        "simulate(games='x')",
        lambda: simulate(R, 2, ["random"] * 2, "x", 1),
        TypeError,
        "games must be a whole number, got 'x'",
    ),
    (
        "simulate(games=0)",
        lambda: simulate(R, 2, ["random"] * 2, 0, 1),
        ValueError,
        "games must be a whole number of 1 or more, got 0",
    ),
    (
        "simulate(seed='x')",
        lambda: simulate(R, 2, ["random"] * 2, 2, "x"),
        TypeError,
        "seed must be a whole number, got 'x'",
    ),
    (
        "simulate(rotate=1)",
        lambda: simulate(R, 2, ["random"] * 2, 2, 1, rotate=1),
        TypeError,
        "rotate must be True or False, got 1",
    ),
    (
        "simulate(chunk_size=0)",
        lambda: simulate(R, 2, ["random"] * 2, 2, 1, chunk_size=0),
        ValueError,
        "chunk_size must be 1 or more, got 0",
    ),
    (
        "wilson_interval(wins='1')",
        lambda: wilson_interval("1", 2),
        TypeError,
        "wins must be a number, got '1'",
    ),
    (
        "wilson_interval(games=2.0)",
        lambda: wilson_interval(1, 2.0),
        TypeError,
        "games must be a whole number, got 2.0",
    ),
    (
        "wilson_interval(z='x')",
        lambda: wilson_interval(1, 2, z="x"),
        TypeError,
        "z must be a number, got 'x'",
    ),
    # determinize
    (
        "determinize(view=5)",
        lambda: determinize(5, R, random.Random(1)),
        TypeError,
        "expected a PlayerView, got 5",
    ),
    (
        "determinize(rules='practice')",
        lambda: determinize(_duel().view(0), "practice", random.Random(1)),
        TypeError,
        "expected a RuleSet, got 'practice'",
    ),
    (
        "determinize(rng=1)",
        lambda: determinize(_duel().view(0), R, 1),
        TypeError,
        "rng must be a random.Random, got 1",
    ),
    (
        "InfoSet(view=None)",
        lambda: InfoSet(None, R),
        TypeError,
        "expected a PlayerView, got None",
    ),
    (
        "InfoSet(evidence=1)",
        lambda: InfoSet(_duel().view(0), R, evidence=1),
        TypeError,
        "evidence must be True or False, got 1",
    ),
    (
        "InfoSet.sample(rng='x')",
        lambda: InfoSet(_duel().view(0), R).sample("x"),
        TypeError,
        "rng must be a random.Random, got 'x'",
    ),
    (
        "InfoSet.assignment(rng=None)",
        lambda: InfoSet(_duel().view(0), R).assignment(None),
        TypeError,
        "rng must be a random.Random, got None",
    ),
    (
        "InfoSet.build(assign=(1, 2))",
        lambda: InfoSet(_duel().view(0), R).build((1, 2), random.Random(1)),
        TypeError,
        "assign must be a list of 52 faces, as assignment() gives, got (1, 2)",
    ),
    (
        "InfoSet.build(rng=2.5)",
        lambda: _build_with(2.5),
        TypeError,
        "rng must be a random.Random, got 2.5",
    ),
]


def _build_with(rng: object) -> object:
    info = InfoSet(_duel().view(0), R)
    return info.build(info.assignment(random.Random(1)), rng)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "error", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_wrong_argument_gets_this_error_in_either_build(
    call: Callable[[], object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        call()
    assert type(caught.value) is error
    assert str(caught.value) == message


class _Index:
    """A whole number that is no int (as numpy's integers are)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_whole_numbers_that_are_not_ints_are_taken_alike() -> None:
    # a learner's numpy.int64 seat: anything with __index__ (bool aside) is a whole number
    r = _round()
    two = _Index(2)
    assert r.view(two) == r.view(2)
    assert r.legal_action_ids(_Index(0)) == r.legal_action_ids(0)
    assert Round(R, _Index(3), seed=_Index(1)).to_json() == r.to_json()
    assert wilson_interval(_Index(1), _Index(2)) == wilson_interval(1, 2)


def test_the_random_bot_reads_no_view_in_either_build() -> None:
    # it declares needs_view = False: whatever stands in the view's place is ignored
    r = _round()
    legal = r.legal_actions(r.to_act)
    assert legal
    assert RandomBot(4).act(5, legal) == RandomBot(4).act(None, legal)
    assert RandomBot(4, snap_rate=1.0).react("x", []) is None


def test_the_checks_themselves() -> None:
    assert whole("n", 3) == 3 and type(whole("n", _Index(4))) is int
    assert optional_whole("n", None) is None
    assert flag("f", True) is True and flag("f", False) is False
    assert number("x", 1) == 1.0 and type(number("x", 1)) is float
    assert text("t", "a") == "a"
    assert items("xs", (1, 2), "numbers") == [1, 2]
    for check, bad in ((whole, True), (whole, "1"), (flag, 0), (number, True), (number, "1")):
        with pytest.raises(TypeError, match="got"):
            check("v", bad)
    with pytest.raises(TypeError, match="xs must be a list of numbers, got 'ab'"):
        items("xs", "ab", "numbers")


# --------------------------------------------------------------------------- the source check
def _compiled_modules() -> list[str]:
    """The modules ``setup.py`` compiles (its ``COMPILED`` list), read from its source."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
            "COMPILED"
        ]:
            return [ast.literal_eval(e) for e in node.value.elts]
    raise AssertionError("setup.py has no COMPILED list")


def _native_classes(trees: dict[str, ast.Module]) -> set[str]:
    """Classes of the compiled modules whose instances mypyc checks on entry: plain
    classes and attrs classes (a ``PlayerView`` parameter refuses an ``int`` with
    "cambio.views.PlayerView object expected"); named tuples, enums and protocols stay
    Python classes mypyc does not check on entry."""
    out = set()
    for tree in trees.values():
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {ast.unparse(b) for b in node.bases}
            if bases & {"NamedTuple", "enum.Enum", "enum.IntEnum", "Protocol", "Exception"}:
                continue
            out.add(node.name)
    return out


_CHECKED_ON_ENTRY = {"int", "bool", "float", "str", "bytes", "bytearray", "complex"}


def _checked_parts(annotation: str, native: set[str]) -> list[str]:
    """The types of ``annotation`` that a compiled function would check on entry (none
    when the annotation is a union with a type mypyc does not check)."""
    bare = re.sub(r"\bArg\[.*\]", "object", annotation)  # checked by the function itself
    while "[" in bare:  # a container's item types are not checked on entry
        bare = re.sub(r"\[[^\[\]]*\]", "", bare)
    parts = [p.strip() for p in bare.split("|")]
    checked = [p for p in parts if p in _CHECKED_ON_ENTRY or p in native]
    # a union with any other type (a Python class, a protocol, object) is left unchecked
    if checked and all(p in checked or p == "None" for p in parts):
        return checked
    return []


def _public_functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef]]:
    names: set[str] | None = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
            "__all__"
        ]:
            names = {ast.literal_eval(e) for e in node.value.elts}
    out = []
    for node in tree.body:
        public = names is None or getattr(node, "name", "_") in names
        if isinstance(node, ast.FunctionDef) and public and not node.name.startswith("_"):
            out.append((node.name, node))
        elif isinstance(node, ast.ClassDef) and public:
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and (
                    not f.name.startswith("_") or f.name in ("__init__", "__call__")
                ):
                    out.append((f"{node.name}.{f.name}", f))
    return out


def test_no_public_parameter_of_a_compiled_module_is_checked_by_mypyc() -> None:
    modules = _compiled_modules()
    assert "round" in modules and len(modules) >= 5
    trees = {m: ast.parse((ROOT / "src" / "cambio" / f"{m}.py").read_text()) for m in modules}
    native = _native_classes(trees)
    assert "Round" in native
    found: list[str] = []
    seen = 0
    for module, tree in trees.items():
        for name, fn in _public_functions(tree):
            args = fn.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs:
                if arg.arg in ("self", "cls") or arg.annotation is None:
                    continue
                seen += 1
                parts = _checked_parts(ast.unparse(arg.annotation), native)
                if parts:
                    found.append(f"{module}.{name}({arg.arg}: {ast.unparse(arg.annotation)})")
    assert seen > 40  # the check looked at the modules' parameters
    assert "PlayerView" in native  # an attrs class of a compiled module is checked too
    assert not found, (
        "parameters a compiled build would refuse with mypyc's own message: type them as "
        "SupportsIndex or cambio.arguments.Arg[...] and check them in the function: "
        + "; ".join(found)
    )

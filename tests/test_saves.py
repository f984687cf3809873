"""Saved rounds and matches distrust their input.

Every load reads the document strictly (no coercion), checks the rules like a rule file
and the snapshot against every invariant of :mod:`cambio.invariants`, and raises one
typed error, :class:`cambio.SaveError`, naming the JSON path of the first problem.

The fuzz tests take real saves (random rounds and matches on several profiles and on
generated tables), mutate them (change a number, swap two cards, delete, rename or
duplicate a key, change a value's type, truncate the text) and check that loading
either raises ``SaveError`` or gives back a consistent round that saves and loads to an
equal round and plays on under the invariant checks.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

import cambio
from cambio import Match, Round, SaveError
from cambio.invariants import ensure_consistent, state_problem
from decks import random_steps, seat_counts
from strategies import rulesets

FIXTURES = Path(__file__).parent / "fixtures"

FUZZ_PROFILES = ("practice", "snap", "penalty", "elimination", "draw-power", "blind")
"""Profiles whose saves are mutated: different phases, powers, snapping and endings."""


def played(rules: cambio.RuleSet | str, players: int | None, seed: int, steps: int) -> Round:
    """A round of ``rules`` after up to ``steps`` random legal actions (snaps included)."""
    return random_steps(Round(rules, players, seed=seed), seed, steps)


def play_on(r: Round, seed: int, steps: int) -> None:
    """Play ``steps`` more random actions, checking every invariant after each."""
    rng = random.Random(seed)
    for _ in range(steps):
        if r.is_over:
            return
        who = r.to_act
        assert who is not None
        r.apply(rng.choice(r.legal_action_ids(who)))
        ensure_consistent(r)


@st.composite
def saved_rounds(draw: st.DrawFn) -> Round:
    rules: cambio.RuleSet | str
    if draw(st.integers(0, 3)):
        rules = cambio.load_ruleset(draw(st.sampled_from(FUZZ_PROFILES)))
    else:
        rules = draw(rulesets())
    players = draw(st.sampled_from(seat_counts(rules)))
    return played(rules, players, draw(st.integers(0, 2**32)), draw(st.integers(0, 80)))


def _leaves(doc: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path in ``doc`` (to a container or a value), containers first."""
    out = [at]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.extend(_leaves(v, (*at, k)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.extend(_leaves(v, (*at, i)))
    return out


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


OTHER_TYPES: tuple[Any, ...] = (
    "3",
    3.7,
    3.0,
    True,
    False,
    None,
    [],
    {},
    [3],
    {"x": 3},
    "yes",
    -1,
    2**70,
)


@st.composite
def mutations(draw: st.DrawFn, doc: dict[str, Any]) -> str:
    """The JSON text of ``doc`` changed in one of several ways (``doc`` is changed too)."""
    paths = _leaves(doc)[1:]
    if draw(st.integers(0, 3)) and "state" in doc:  # mostly the snapshot
        paths = [p for p in paths if p[0] == "state"]
    numbers = [p for p in paths if type(_get(doc, p)) is int]
    how = draw(
        st.sampled_from(
            ["number", "number", "swap", "delete", "rename", "type", "duplicate", "truncate"]
        )
    )
    note(f"mutation: {how}")
    if how == "number" and numbers:
        path = draw(st.sampled_from(numbers))
        old = _get(doc, path)
        new = draw(
            st.one_of(
                st.integers(-3, 60),
                st.sampled_from([old + 1, old - 1, 2**31, 10**30, -(10**30)]),
            )
        )
        note(f"{path}: {old} -> {new}")
        _set(doc, path, new)
    elif how == "swap" and len(numbers) >= 2:
        a = draw(st.sampled_from(numbers))
        b = draw(st.sampled_from(numbers))
        va, vb = _get(doc, a), _get(doc, b)
        note(f"swap {a}={va} and {b}={vb}")
        _set(doc, a, vb)
        _set(doc, b, va)
    elif how in ("delete", "rename"):
        tables = [p for p in [(), *paths] if isinstance(_get(doc, p), dict) and _get(doc, p)]
        path = draw(st.sampled_from(tables))
        table = _get(doc, path)
        key = draw(st.sampled_from(sorted(table)))
        note(f"{how} {path}.{key}")
        value = table.pop(key)
        if how == "rename":
            table[key + "_"] = value
    elif how == "type":
        path = draw(st.sampled_from(paths))
        new = draw(st.sampled_from(OTHER_TYPES))
        note(f"{path}: {_get(doc, path)!r} -> {new!r}")
        _set(doc, path, new)
    elif how == "duplicate":
        # a key written twice in the text: JSON keeps the last one
        text = json.dumps(doc)
        tables = [p for p in [(), *paths] if isinstance(_get(doc, p), dict) and _get(doc, p)]
        path = draw(st.sampled_from(tables))
        key = draw(st.sampled_from(sorted(_get(doc, path))))
        value = draw(st.sampled_from([0, 1, "x", None, [], 99]))
        note(f"duplicate {path}.{key} = {value!r}")
        _set(doc, (*path, key), value)
        return text[:-1] + "," + json.dumps(doc)[1:] if not path else json.dumps(doc)
    text = json.dumps(doc)
    if how == "truncate":
        cut = draw(st.integers(0, len(text)))
        note(f"truncate at {cut} of {len(text)}")
        return text[:cut]
    return text


def _load_mutated(text: str, verify: bool) -> Round | None:
    try:
        loaded = Round.from_json(text, verify=verify)
    except SaveError as exc:
        assert exc.path.startswith("$"), f"no JSON path: {exc}"
        assert isinstance(exc, ValueError)
        event(f"refused at {exc.path.split('[')[0]}")
        return None
    event("loaded")
    return loaded


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.data(), saved_rounds(), st.booleans())
def test_a_mutated_save_loads_consistent_or_raises_save_error(
    data: st.DataObject, r: Round, verify: bool
) -> None:
    doc = r.to_dict()
    text = data.draw(mutations(doc))
    loaded = _load_mutated(text, verify)
    if loaded is None:
        return
    assert state_problem(loaded) is None
    again = Round.from_json(loaded.to_json())
    assert again == loaded, "a loaded round saves and loads as a different round"
    if text == r.to_json():
        assert loaded == r
    play_on(loaded, 1, 25)


@st.composite
def saved_matches(draw: st.DrawFn) -> Match:
    name = draw(st.sampled_from(("practice", "snap", "elimination", "teams")))
    rules = cambio.load_ruleset(name)
    players = draw(st.sampled_from(seat_counts(rules)))
    m = Match(rules, players, seed=draw(st.integers(0, 2**32)))
    rng = random.Random(draw(st.integers(0, 100)))
    for _ in range(draw(st.integers(0, 120))):
        if m.is_over:
            break
        who = m.to_act
        assert who is not None
        m.apply(rng.choice(m.legal_action_ids(who)))
    return m


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.data(), saved_matches())
def test_a_mutated_match_save_loads_or_raises_save_error(data: st.DataObject, m: Match) -> None:
    text = data.draw(mutations(m.to_dict()))
    try:
        loaded = Match.from_json(text)
    except SaveError as exc:
        assert exc.path.startswith("$")
        return
    assert Match.from_json(loaded.to_json()) == loaded
    if text == m.to_json():
        assert loaded == m
    rng = random.Random(0)
    for _ in range(20):
        if loaded.is_over:
            break
        who = loaded.to_act
        assert who is not None
        loaded.apply(rng.choice(loaded.legal_action_ids(who)))


# --------------------------------------------------------------------------- named holes


def _round_doc() -> dict[str, Any]:
    r = played("snap", 3, 11, 9)
    assert not r.is_over
    return r.to_dict()


def _over_doc() -> dict[str, Any]:
    r = played("practice", 3, 5, 400)
    assert r.is_over
    return r.to_dict()


def _expect_error(doc: Any, path: str, *, verify: bool = False) -> SaveError:
    with pytest.raises(SaveError) as info:
        Round.from_dict(doc, verify=verify)
    assert info.value.path == path, str(info.value)
    return info.value


def test_one_card_in_two_grids_is_refused() -> None:
    doc = _round_doc()
    slots = doc["state"]["slots"]
    slots[1][0] = slots[0][0]
    err = _expect_error(doc, "$.state.slots[1][0]")
    assert "2 places" in err.message


def test_a_card_more_than_the_table_holds_is_refused() -> None:
    doc = _round_doc()
    doc["deck"].append(doc["deck"][0])
    _expect_error(doc, "$.deck")
    doc = _round_doc()
    doc["deck"][1] = doc["deck"][0]
    _expect_error(doc, "$.deck[1]")


@pytest.mark.parametrize("field", ["current", "caller", "snapper", "window_discarder"])
def test_a_seat_out_of_range_is_refused(field: str) -> None:
    doc = _round_doc()
    doc["state"][field] = 99
    _expect_error(doc, f"$.state.{field}")


def test_knowledge_bits_out_of_range_are_refused() -> None:
    doc = _round_doc()
    doc["state"]["known"][3] = 1 << 9
    _expect_error(doc, "$.state.known[3]")
    doc = _round_doc()
    doc["state"]["known"][3] = -1
    _expect_error(doc, "$.state.known[3]")


def test_a_finished_phase_needs_a_result_and_a_result_its_hands() -> None:
    doc = _round_doc()
    doc["state"]["phase"] = int(cambio.Phase.OVER)
    _expect_error(doc, "$.state.result")
    doc = _over_doc()
    doc["state"]["result"]["winners"] = [42]
    _expect_error(doc, "$.state.result")
    doc = _over_doc()
    doc["state"]["result"]["caller"] = 42
    _expect_error(doc, "$.state.result.caller")


def test_a_power_index_out_of_range_is_refused_even_with_verify() -> None:
    doc = _round_doc()
    doc["state"]["power"] = 99
    _expect_error(doc, "$.state.power", verify=True)


def test_deep_nesting_is_a_save_error_not_a_recursion_error() -> None:
    for text in ("[" * 100_000, '{"a":' * 50_000):
        with pytest.raises(SaveError) as info:
            Round.from_json(text)
        assert info.value.path == "$"
        with pytest.raises(SaveError):
            Match.from_json(text)
    doc = _round_doc()
    deep: Any = []
    for _ in range(5_000):
        deep = [deep]
    doc["rules"]["grid"]["rows"] = deep
    with pytest.raises(SaveError):
        Round.from_dict(doc)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("players",), "3"),
        (("players",), 3.7),
        (("players",), 3.0),
        (("players",), True),
        (("seed",), "11"),
        (("dealer",), 2.0),
        (("state", "from_stock"), "yes"),
        (("state", "from_stock"), 1),
        (("state", "current"), 1.0),
        (("state", "phase"), "1"),
        (("state", "slots", 0, 0), 0.0),
        (("actions", 0), 0.0),
        (("actions", 0), False),
        (("actions", 0), "0"),
        (("state", "events", 1, 1), "0"),
        (("state", "events", 1, 0), 1.0),
        (("state", "events", 1, 2, 0), True),
        (("state", "events", 1, 3, 0), 0.0),
        (("state", "events", 1, 4), "1"),
    ],
)
def test_no_value_is_coerced(path: tuple[Any, ...], value: Any) -> None:
    doc = _round_doc()
    _set(doc, path, value)
    expected = "$" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path)
    _expect_error(doc, expected)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("actions", 0, "player"), 0.0),
        (("actions", 0, "player"), False),
        (("state", "events", 1, 1), "0"),
        (("state", "events", 1, 3, 0), "KH"),
        (("state", "phase"), "1"),
    ],
)
def test_no_value_of_an_old_save_is_coerced(path: tuple[Any, ...], value: Any) -> None:
    doc = json.loads((FIXTURES / "round-v3-mid.json").read_text())
    assert doc["format"] == "cambio-round/3"
    _set(doc, path, value)
    expected = "$" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path)
    _expect_error(doc, expected)


def test_compact_events_out_of_range_are_refused() -> None:
    doc = _round_doc()
    events = doc["state"]["events"]
    deal = events[0]
    assert deal[0] == 0 and len(deal[3]) == 1  # the deal shows the first discard
    for bad, where in [
        ([99, -1], "$.state.events[0][0]"),
        ([0, -1, [1]], "$.state.events[0][2]"),
        ([0, -1, [], [len(doc["deck"])]], "$.state.events[0][3][0]"),
        ([0, -1, [], [], -2], "$.state.events[0][4]"),
        ([0, -1, [], [], -1, "x", 1], "$.state.events[0]"),
        ([0], "$.state.events[0]"),
    ]:
        changed = json.loads(json.dumps(doc))
        changed["state"]["events"][0] = bad
        _expect_error(changed, where)
    changed = json.loads(json.dumps(doc))
    changed["actions"][0] = 10**6
    _expect_error(changed, "$.actions[0]")


def test_unknown_and_missing_keys_are_named() -> None:
    doc = _round_doc()
    doc["state"]["extra"] = 1
    _expect_error(doc, "$.state.extra")
    doc = _round_doc()
    del doc["state"]["known"]
    _expect_error(doc, "$.state.known")


def test_oversized_text_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    import cambio.saving

    monkeypatch.setattr(cambio.saving, "MAX_SAVE_CHARS", 1000)
    with pytest.raises(SaveError, match="too large"):
        Round.from_json(json.dumps(_round_doc()))
    monkeypatch.setattr(cambio.saving, "MAX_NODES", 100)
    with pytest.raises(SaveError, match="too large"):
        Round.from_dict(_round_doc())


def test_not_json_and_not_text_are_save_errors() -> None:
    for bad in ("", "{", "nul", b"\xff\xfe", 42, None, "[1e99999]", "1" * 5000):
        with pytest.raises(SaveError):
            Round.from_json(bad)
        with pytest.raises(SaveError):
            Match.from_json(bad)  # type: ignore[arg-type]


def test_a_bad_rule_table_in_a_save_names_its_path() -> None:
    doc = _round_doc()
    doc["rules"]["grid"]["rows"] = [2, "2"]
    _expect_error(doc, "$.rules.grid.rows[1]")


def test_a_match_save_is_strict_too() -> None:
    m = Match("practice", 3, seed=4)
    m.apply(m.legal_action_ids(m.to_act)[0])
    doc = m.to_dict()
    other_seat = m.space.encode(cambio.Action.draw(2))  # a well-formed id, not legal now
    for path, value, where in [
        (("players",), "3", "$.players"),
        (("players",), 99, "$.players"),
        (("seed",), 4.0, "$.seed"),
        (("actions", 0), 0.0, "$.actions[0]"),
        (("actions", 0), True, "$.actions[0]"),
        (("actions", 0), other_seat, "$.actions[0]"),
        (("actions", 0), 10**6, "$.actions[0]"),
        (("actions", 0), -1, "$.actions[0]"),
    ]:
        bad = json.loads(json.dumps(doc))
        _set(bad, path, value)
        with pytest.raises(SaveError) as info:
            Match.from_dict(bad)
        assert info.value.path == where, str(info.value)
    assert Match.from_dict(doc) == m
    old = json.loads((FIXTURES / "match-v2-mid.json").read_text())  # actions as objects
    for path, value, where in [
        (("actions", 0, "player"), 0.0, "$.actions[0].player"),
        (("actions", 0, "player"), 2, "$.actions[0]"),
        (("actions", 0, "kind"), "fly", "$.actions[0].kind"),
        (("actions", 0), 0, "$.actions[0]"),
    ]:
        bad = json.loads(json.dumps(old))
        _set(bad, path, value)
        with pytest.raises(SaveError) as info:
            Match.from_dict(bad)
        assert info.value.path == where, str(info.value)


def test_every_profile_round_trips_through_a_checked_load() -> None:
    for name in cambio.available_variants():
        r = played(name, None, 3, 40)
        assert Round.from_json(r.to_json(), verify=True) == r


def test_the_engine_record_types_the_reader_uses_are_the_declared_ones() -> None:
    """saving.ENGINE_HINTS (needed by the compiled build, whose classes keep only erased
    annotations) holds exactly each class's annotations as written in its source."""
    import ast
    import inspect
    from pathlib import Path

    from cambio import scoring
    from cambio.saving import ENGINE_HINTS

    source = Path(inspect.getfile(scoring)).parent / "scoring.py"  # beside a compiled one
    tree = ast.parse(source.read_text(encoding="utf-8"))
    namespace = vars(scoring)
    for cls, hints in ENGINE_HINTS.items():
        (node,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
        declared = {
            item.target.id: eval(ast.unparse(item.annotation), namespace)
            for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
        }
        assert declared == hints, cls.__name__

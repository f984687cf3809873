"""Bad input: broken rule files and illegal or malformed actions fail with their own error.

Rule tables: hypothesis breaks valid tables in every section at once (wrong types,
unknown keys, out-of-range numbers, missing tables), writes them as files, truncates
them, injects bytes that are not UTF-8, and builds chains of ``extends`` with and
without cycles. Loading always raises :class:`~cambio.errors.RuleSetError` whose
problems each carry a key path inside the table (or an empty path for a problem of the
whole file: syntax, encoding, a missing parent), and never any other exception.
(``tests/test_loading.py`` checks single mistakes precisely; this file mixes them.)

Actions: a wrong player, a stale action, out-of-range positions and every wrong type
raise :class:`~cambio.errors.IllegalActionError` from ``verify`` and ``apply`` (and
``can_apply`` says no) and leave the round unchanged; so does :class:`cambio.Match`.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import assume, given, note
from hypothesis import strategies as st

import cambio
from cambio import Action, ActionKind, IllegalActionError, Match, Round, RuleSetError
from cambio.loading import load_ruleset, ruleset_from_toml, ruleset_to_dict, ruleset_to_toml
from decks import seat_counts
from strategies import rulesets
from test_properties import (
    check_illegal,
    check_malformed,
    ending_choice,
    malformed_actions,
    not_actions,
    tables,
)

SECTIONS = [
    "players",
    "deck",
    "values",
    "grid",
    "opening",
    "turn",
    "powers",
    "snap",
    "call",
    "scoring",
    "stock",
    "match",
    "teams",
]


# --------------------------------------------------------------------------- table surgery


def leaves(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every value (and of every table and array) of a TOML table."""
    found: list[tuple[Any, ...]] = [at] if at else []
    if isinstance(node, dict):
        for key, sub in node.items():
            found += leaves(sub, (*at, key))
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            found += leaves(sub, (*at, i))
    return found


def get(node: Any, at: tuple[Any, ...]) -> Any:
    for key in at:
        node = node[key]
    return node


_junk_values = st.one_of(
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**40, max_value=2**63 - 1),
    st.integers(min_value=-(2**63), max_value=-1),
    st.floats(allow_nan=False),
    st.text(max_size=6),
    st.lists(st.integers(-3, 30), max_size=4),
    st.dictionaries(st.text(max_size=5), st.integers(-2, 9), max_size=2),
    st.sampled_from([0, -1, 1, 7, 10**6, "", "never", "any", "red", [], {}]),
)


@st.composite
def broken_tables(draw: st.DrawFn) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """A valid table with one to four mistakes anywhere; returns it and the paths hit."""
    table = ruleset_to_dict(draw(rulesets()))
    touched: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(1, 4))):
        paths = leaves(table)
        at = draw(st.sampled_from(paths))
        parent = get(table, at[:-1])
        how = draw(st.sampled_from(["replace", "unknown", "delete", "section"]))
        if how == "replace":
            parent[at[-1]] = draw(_junk_values)
        elif how == "unknown" and isinstance(parent, dict):
            name = draw(st.text("abcdefghijklmnopqrstuvwxyz_", min_size=3, max_size=10))
            parent[name] = draw(_junk_values)
            at = (*at[:-1], name)
        elif how == "delete" and isinstance(parent, dict):
            del parent[at[-1]]
        else:
            section = draw(st.sampled_from(SECTIONS))
            table[section] = draw(_junk_values)
            at = (section,)
        touched.append(at)
    return table, touched


def dotted(at: tuple[Any, ...]) -> str:
    out = ""
    for key in at:
        out += f"[{key}]" if isinstance(key, int) else ("." if out else "") + str(key)
    return out


def check_problems(
    exc: RuleSetError, source: str | None = None, table: dict[str, Any] | None = None
) -> None:
    """Every problem names its file, and its key path (when it has one) starts at a key
    of the table: a section, a top-level field, or a key the file itself holds."""
    assert exc.problems, "a RuleSetError without problems"
    top = {*SECTIONS, "name", "summary", "extends", *(table or {})}
    for p in exc.problems:
        assert isinstance(p.path, str) and isinstance(p.message, str) and p.message
        if source is not None:
            assert p.source, f"no file named for {p}"
        if p.path:
            head = p.path.split(".")[0].split("[")[0]
            assert head in top or head.strip('"') in top, f"{p.path!r} is not a key path"


@given(broken_tables())
def test_mistakes_anywhere_give_rule_set_errors_with_key_paths(
    case: tuple[dict[str, Any], list[tuple[Any, ...]]],
) -> None:
    table, touched = case
    note(f"touched: {[dotted(at) for at in touched]}")
    try:
        text = tomli_w.dumps(table)
    except (TypeError, ValueError):
        assume(False)  # not expressible as TOML (tomli_w refuses), not a loader question
    try:
        rules = ruleset_from_toml(text, "broken.toml")
    except RuleSetError as exc:
        check_problems(exc, "broken.toml", table)
        assert all(p.source == "broken.toml" for p in exc.problems)
        assert all(p.path for p in exc.problems), "a parsed table's problems all have paths"
    else:
        assert cambio.check_rules(rules) == []  # the mistakes happened to be harmless


@given(broken_tables(), st.data())
def test_broken_files_truncated_or_not_utf8(
    case: tuple[dict[str, Any], list[tuple[Any, ...]]], data: st.DataObject
) -> None:
    table, _ = case
    try:
        raw = tomli_w.dumps(table).encode("utf-8")
    except (TypeError, ValueError):
        raw = ruleset_to_toml(cambio.RuleSet()).encode("utf-8")
    how = data.draw(st.sampled_from(["truncate", "bad-bytes", "both"]))
    if how in ("truncate", "both"):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    if how in ("bad-bytes", "both"):
        junk = data.draw(
            st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80", b"\xfe\xff", b"\0"])
        )
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + junk + raw[at:]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "broken.toml"
        path.write_bytes(raw)
        try:
            load_ruleset(path)
        except RuleSetError as exc:
            check_problems(exc, source=str(path), table=table)
            if how != "truncate":
                (problem,) = exc.problems
                assert problem.path == "" and problem.source == str(path)
                assert "UTF-8" in problem.message or "binary" in problem.message
        else:
            assert how == "truncate"


@st.composite
def extends_chains(draw: st.DrawFn) -> tuple[list[str], int | None, int]:
    """File names of a chain (file i extends file i + 1), where the last file extends
    (an index back into the chain: a cycle) or a bundled profile (``None``); and the
    index of a file that also carries a mistake (or -1)."""
    names = draw(
        st.lists(
            st.sampled_from(["a", "b", "c", "sub/d", "sub/e", "f"]),
            min_size=1,
            max_size=5,
            unique=True,
        )
    )
    back = draw(st.none() | st.integers(0, len(names) - 1))
    broken = draw(st.integers(-1, len(names) - 1))
    return names, back, broken


def _relative(from_name: str, to_name: str) -> str:
    depth = from_name.count("/")
    return "../" * depth + to_name + ".toml"


@given(extends_chains(), st.sampled_from(cambio.available_variants()))
def test_extends_chains_and_cycles(chain: tuple[list[str], int | None, int], bundled: str) -> None:
    names, back, broken = chain
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for i, name in enumerate(names):
            if i + 1 < len(names):
                parent = _relative(name, names[i + 1])
            elif back is not None:
                parent = _relative(name, names[back])
            else:
                parent = bundled
            body = f'extends = "{parent}"\n'
            if i == broken:
                body += '[grid]\nrows = "two by two"\n'
            path = root / f"{name}.toml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
        first = root / f"{names[0]}.toml"
        # sub/d.toml extending ../b.toml leaves its own folder: the caller allows the root
        if back is None and broken < 0:
            assert load_ruleset(first, search_path=[root]).name == names[0].split("/")[-1]
            return
        with pytest.raises(RuleSetError) as info:
            load_ruleset(first, search_path=[root])
        check_problems(info.value, source=str(first))
        problems = info.value.problems
        if back is not None:
            (problem,) = problems
            assert problem.path == "extends" and "cycle" in problem.message
        else:
            (problem,) = problems
            assert problem.path == "grid.rows"
            assert problem.source.endswith(f"{names[broken]}.toml")


def test_a_parent_with_bytes_that_are_not_utf8_is_named(tmp_path: Path) -> None:
    (tmp_path / "parent.toml").write_bytes(b'name = "p\xff"\n')
    (tmp_path / "child.toml").write_text('extends = "parent.toml"\n', encoding="utf-8")
    with pytest.raises(RuleSetError) as info:
        load_ruleset(tmp_path / "child.toml")
    (problem,) = info.value.problems
    assert problem.source.endswith("parent.toml") and problem.path == ""
    assert "UTF-8" in problem.message


# --------------------------------------------------------------------------- actions


def _advance(r: Round, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if r.is_over:
            return
        r.apply(ending_choice(r, rng, 8))


@st.composite
def rounds_midway(draw: st.DrawFn) -> Round:
    """A round of any table after a random number of actions."""
    rules = draw(tables)
    players = draw(st.sampled_from(seat_counts(rules)))
    r = Round(rules, players, seed=draw(st.integers(0, 2**32)))
    _advance(r, random.Random(draw(st.integers(0, 2**16))), draw(st.integers(0, 60)))
    return r


@given(rounds_midway(), st.data())
def test_a_legal_action_of_the_wrong_player_is_refused(r: Round, data: st.DataObject) -> None:
    assume(not r.is_over and r.to_act is not None and r.legal_actions(r.to_act))
    action = data.draw(st.sampled_from(r.legal_actions(r.to_act)))
    other = data.draw(st.sampled_from([p for p in range(-2, r.players + 2) if p != r.to_act]))
    moved = Action(action.kind, other, action.positions)
    assume(not r.can_apply(moved))  # a snap may be legal for another player too
    check_illegal(r, moved)


@given(rounds_midway(), st.integers(1, 10), st.integers(0, 2**16))
def test_a_stale_action_is_refused(r: Round, back: int, seed: int) -> None:
    """An action taken a few steps ago, applied again once the state moved on."""
    assume(len(r.action_ids) >= back)
    old = r.actions[-back]
    if r.can_apply(old):  # the same action may be legal again (another draw, ...)
        _advance(r, random.Random(seed), 1)
        assume(not r.can_apply(old))
    check_illegal(r, old)
    check_illegal(r, r.space.encode(old))


@given(rounds_midway(), st.data())
def test_out_of_range_positions_and_ids_are_refused(r: Round, data: st.DataObject) -> None:
    p = r.to_act if r.to_act is not None else 0
    n, positions = r.players, r.space.positions
    kind = data.draw(st.sampled_from(list(ActionKind)))
    bad_owner = st.one_of(st.integers(max_value=-1), st.integers(min_value=n))
    bad_position = st.one_of(st.integers(max_value=0), st.integers(min_value=positions + 1))
    slot = st.one_of(
        st.tuples(bad_owner, st.integers(1, positions)),
        st.tuples(st.integers(0, n - 1), bad_position),
    )
    action = Action(kind, p, tuple(data.draw(st.lists(slot, min_size=1, max_size=3))))
    check_illegal(r, action)
    wrong_id = data.draw(st.one_of(st.integers(max_value=-1), st.integers(min_value=r.space.size)))
    check_illegal(r, wrong_id)


@given(rounds_midway(), malformed_actions)
def test_malformed_actions_are_refused(r: Round, action: Action) -> None:
    check_malformed(r, action)


@given(rounds_midway(), not_actions)
def test_things_that_are_not_actions_are_refused(r: Round, thing: Any) -> None:
    check_illegal(r, thing)


@given(st.sampled_from(cambio.available_variants()), st.integers(0, 2**16), not_actions)
def test_a_match_refuses_bad_input_too(name: str, seed: int, thing: Any) -> None:
    rules = cambio.load_ruleset(name)
    m = Match(rules, seed=seed)
    before = m.copy()
    assert not m.can_apply(thing)
    with pytest.raises(IllegalActionError):
        m.verify(thing)
    with pytest.raises(IllegalActionError):
        m.apply(thing)
    assert m == before


# --------------------------------------------------------------------------- engine bugs found


@pytest.mark.parametrize(
    "action",
    [
        Action("bogus", 0),  # type: ignore[arg-type]
        Action(None, 0),  # type: ignore[arg-type]
        Action(ActionKind.DRAW, 0, 5),  # type: ignore[arg-type]
        Action(ActionKind.SWAP, 0, ((1, 2, 3), (0, 1))),  # type: ignore[arg-type]
        Action(ActionKind.SNAP, 0, ((0,),)),  # type: ignore[arg-type]
    ],
    ids=["str-kind", "none-kind", "int-positions", "triple", "single"],
)
def test_malformed_action_objects_raise_illegal_action_error(action: Action) -> None:
    """Bug 4 (fixed): formatting the refusal of a malformed action raised another error."""
    r = Round("practice", 3, seed=1)
    assert not r.can_apply(action)
    with pytest.raises(IllegalActionError):
        r.apply(action)


@pytest.mark.parametrize(
    "odd",
    [
        Action(ActionKind.DRAW, 0.0),  # type: ignore[arg-type]
        Action(ActionKind.DRAW, False),
    ],
    ids=["float-player", "bool-player"],
)
def test_a_float_or_bool_player_is_refused_whatever_was_encoded_before(odd: Action) -> None:
    """Bug 3 (fixed): the id cache accepted 0.0 or False for 0 once 0 had been encoded."""
    r = Round("practice", 3, seed=1, starter=0)
    r.apply(Action.draw(0))  # encodes Action(DRAW, 0): the cache is warm
    r2 = Round("practice", 3, seed=1, starter=0)
    assert not r2.can_apply(odd)
    with pytest.raises(IllegalActionError):
        r2.apply(odd)

"""Nothing a seat has not seen reaches it, through any door.

For every bundled profile, pairs of deals are found that differ only in two cards one
seat (the *viewer*) has not seen: a card another player holds after a private draw is
favoured, exchanged for an unseen card of every other power (so powers of different
shapes are drawn privately on the tables whose powers act when drawn). Both deals are
played with the same actions: a random prefix, then moves legal in both deals (the
actor's choice is one it could make in either), until the viewer legally learns one of
the two cards or the first round ends. At every step, everything the viewer can observe
through each door is compared, byte for byte where it is text:

* the library: the public attributes of :class:`~cambio.Round` and
  :class:`~cambio.Match`, the viewer's view and legal actions, the reason of every
  refusal of a battery of its actions, and the public view (a spectator's);
* learning: the PettingZoo observation and action mask (and who is to act), and
  OpenSpiel's information-state and observation strings and tensors;
* the protocol: every reply the viewer's requests get from ``cambio engine`` (the line
  loop it runs), and every message ``cambio serve`` sends to the viewer's WebSocket and
  to a spectator's.

The web page's DOM is compared in :mod:`test_web` (a real browser, slower), from the
same pairs.

A control runs beside each pair: a deal that differs from the first in a card the
viewer *did* see, played with the same actions. Every door must tell it apart, so no
door can pass by comparing nothing.
"""

from __future__ import annotations

import functools
import io
import json
import random
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

import cambio
from cambio import ActionKind, IllegalActionError, Match, Round
from cambio.engine import serve_lines
from cambio.protocol import Engine
from cambio.rl.turns import Turns
from test_public_state import battery
from test_public_state import public as round_public

PROFILES = cambio.available_variants()
WALK_SEEDS = (0, 1, 2)
"""The seeds the deals are searched from (fixed: nothing is chosen by what a door
shows). Walk seed ``k`` deals as ``cambio.rl``'s environment does after
``reset(seed=k)``: with the seed ``Random(k).randrange(2**63)``."""


def deal_seed(k: int) -> int:
    return random.Random(k).randrange(2**63)


Game = Round | Match
Observation = Any


@attrs.frozen
class Pair:
    """Two deals that differ in cards the viewer has not seen, and a control."""

    name: str
    kind: str  # "round": Round(deck=, seed=); "match": Match(seed=, decks=[deck])
    players: int
    walk: int  # the walk seed (the environment's reset seed)
    seed: int  # the deal's seed
    viewer: int
    first: tuple[str, ...]
    hidden: tuple[str, ...]  # two cards the viewer never learns exchanged
    seen: tuple[str, ...]  # the control: a card the viewer saw exchanged
    actions: tuple[int, ...]  # Turns ids (declines included), all before any reveal
    note: str  # what differs, for messages


def build(pair_kind: str, name: str, players: int, seed: int, deck: Sequence[str]) -> Game:
    rules = cambio.load_ruleset(name)
    if pair_kind == "round":
        return Round(rules, players, seed=seed, deck=list(deck))
    return Match(rules, players, seed=seed, decks=[list(deck)])


def round_of(game: Game) -> Round:
    return game if isinstance(game, Round) else game.round


def round_seat(game: Game, seat: int) -> int:
    return seat if isinstance(game, Round) else game.round_seats.index(seat)


def first_round(game: Game) -> bool:
    return isinstance(game, Round) or (game.round_number == 1 and not game.round.is_over)


def knows(game: Game, viewer: int, cards: Sequence[int]) -> bool:
    r = round_of(game)
    bit = 1 << round_seat(game, viewer)
    return r.is_over or any(r._known[c] & bit for c in cards)


def _positions_of(game: Game, aid: int) -> list[int]:
    """The card ids at the grid positions an action names."""
    if aid >= game.space.size:
        return []
    r = round_of(game)
    action = game.space.decode(aid)
    out = []
    for owner, pos in action.positions:
        o = round_seat(game, owner) if isinstance(game, Match) else owner
        if 0 <= o < r.players and 0 <= pos - 1 < len(r._slots[o]):
            out.append(r._slots[o][pos - 1])
    return out


def _kind(game: Game, aid: int) -> ActionKind | None:
    return None if aid >= game.space.size else game.space.decode(aid).kind


def _choose(
    games: Sequence[Game], turns: Sequence[Turns], rng: random.Random, avoid: set[int]
) -> int | None:
    """A move legal in every game, made as a player might (snaps now and then, rarely
    a call, power steps favoured), never a snap or an exchange that would show one of
    the ``avoid`` cards by its outcome."""
    legal = turns[0].legal()
    for t in turns[1:]:
        theirs = set(t.legal())
        legal = [a for a in legal if a in theirs]
    if not legal:
        return None

    def risky(aid: int) -> bool:
        kind = _kind(games[0], aid)
        if kind not in (ActionKind.SNAP, ActionKind.EXCHANGE):
            return False
        return any(c in avoid for g in games for c in _positions_of(g, aid))

    legal = [a for a in legal if not risky(a)]
    if not legal:
        return None
    decline = turns[0].decline
    if turns[0].reacting:
        snaps = [a for a in legal if a != decline]
        if snaps and rng.random() < 0.15:
            return rng.choice(snaps)
        return decline if decline in legal else rng.choice(legal)
    kinds = {a: _kind(games[0], a) for a in legal}
    steps = [a for a in legal if kinds[a] in (ActionKind.PEEK, ActionKind.SWAP)]
    if steps and rng.random() < 0.7:
        return rng.choice(steps)
    plain = [a for a in legal if kinds[a] not in (ActionKind.CALL, ActionKind.SNAP)]
    if plain and rng.random() > 0.03:
        return rng.choice(plain)
    return rng.choice(legal)


def _prefix(kind: str, name: str, players: int, seed: int, viewer: int) -> list[int]:
    """A random prefix on the seeded deal, cut right after the last private draw of a
    player other than the viewer (its card still in that player's hand)."""
    deck = [str(c) for c in round_of(build_seeded(kind, name, players, seed)).deck]
    game = build(kind, name, players, seed, deck)
    t = Turns(game, shuffle_seed=seed)
    rng = random.Random(f"prefix:{name}:{kind}:{seed}")
    actions: list[int] = []
    cut = 0
    for _ in range(8 + rng.randrange(30)):
        if t.actor is None or not first_round(game):
            break
        aid = _choose([game], [t], rng, set())
        if aid is None:
            break
        t.step(aid)
        actions.append(aid)
        if _kind(game, aid) is ActionKind.DRAW and aid // game.space.per_player != viewer:
            cut = len(actions)
        if not first_round(game):
            actions.pop()
            break
    return actions[: cut or len(actions)]


@functools.cache
def build_seeded(kind: str, name: str, players: int, seed: int) -> Game:
    rules = cambio.load_ruleset(name)
    if kind == "round":
        return Round(rules, players, seed=seed)
    return Match(rules, players, seed=seed)


def _swap(deck: Sequence[str], i: int, j: int) -> tuple[str, ...]:
    out = list(deck)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


@functools.cache
def pairs(name: str, kind: str) -> tuple[Pair, ...]:
    """The pairs of ``name`` for doors over a ``kind`` ("round" or "match")."""
    rules = cambio.load_ruleset(name)
    players = rules.players.default
    found: list[Pair] = []
    for walk in WALK_SEEDS:
        seed = deal_seed(walk)
        viewer = walk % players
        first = tuple(str(c) for c in round_of(build_seeded(kind, name, players, seed)).deck)
        game = build(kind, name, players, seed, first)
        t = Turns(game, shuffle_seed=seed)
        prefix = _prefix(kind, name, players, seed, viewer)
        # what the viewer learnt on the way (in order), and cards whose fate is public
        r = round_of(game)
        bit = 1 << round_seat(game, viewer)
        order = [c for c, k in enumerate(r._known) if k & bit]
        shown: set[int] = set()
        for aid in prefix:
            if _kind(game, aid) in (ActionKind.SNAP, ActionKind.EXCHANGE):
                shown.update(_positions_of(game, aid))
            t.step(aid)
            r = round_of(game)
            order.extend(c for c, k in enumerate(r._known) if k & bit and c not in order)
        unseen = [c for c in range(len(r.deck)) if c not in order and c not in shown]
        if len(unseen) < 2 or not order:
            continue
        power_of = rules.powers.power_of
        held = r._drawn if r._drawn in unseen else unseen[0]
        # the held card against an unseen card of every other power (and of no power)
        partners: dict[object, int] = {}
        for c in unseen:
            if c != held and r.deck[c].rank != r.deck[held].rank:
                partners.setdefault(power_of(r.deck[c]), c)
        partners.pop(power_of(r.deck[held]), None)
        if not partners:
            others = [c for c in unseen if r.deck[c].rank != r.deck[held].rank]
            if not others:
                continue
            partners = {None: others[0]}
        control = next(c for c in order)
        for other in partners.values():
            note = f"{name} walk {walk}: P{viewer} never sees {r.deck[held]} / {r.deck[other]}"
            different = [c for c in unseen if r.deck[c].rank != r.deck[control].rank]
            if not different:
                continue
            pair_actions = _continue(kind, name, players, seed, viewer, first, prefix, held, other)
            found.append(
                Pair(
                    name,
                    kind,
                    players,
                    walk,
                    seed,
                    viewer,
                    first,
                    _swap(first, held, other),
                    _swap(first, control, different[0]),
                    pair_actions,
                    note,
                )
            )
    return tuple(found)


def _continue(
    kind: str,
    name: str,
    players: int,
    seed: int,
    viewer: int,
    first: tuple[str, ...],
    prefix: list[int],
    i: int,
    j: int,
) -> tuple[int, ...]:
    """The prefix as far as both deals allow it, then moves legal in both, stopping
    before the viewer learns card ``i`` or ``j`` (or the first round ends)."""
    games = [build(kind, name, players, seed, d) for d in (first, _swap(first, i, j))]
    turns = [Turns(g, shuffle_seed=seed) for g in games]
    rng = random.Random(f"continue:{name}:{kind}:{seed}:{i}:{j}")
    actions: list[int] = []
    planned = iter(prefix)
    for _ in range(len(prefix) + 30):
        if any(t.actor is None for t in turns):
            break
        aid = next(planned, None)
        if aid is None or not all(aid in t.legal() for t in turns):
            planned = iter(())
            aid = _choose(games, turns, rng, {i, j})
            if aid is None:
                break
        for t in turns:
            t.step(aid)
        if any(knows(g, viewer, (i, j)) or not first_round(g) for g in games):
            break  # this move shows the viewer a differing card: compare up to it only
        actions.append(aid)
    return tuple(actions)


def all_pairs(kind: str) -> list[Pair]:
    return [p for name in PROFILES for p in pairs(name, kind)]


# ---------------------------------------------------------------------------------------
# Comparing what one door shows along the actions


def first_difference(
    pair: Pair, deck: Sequence[str], door: Callable[[Pair, Sequence[str]], Iterator[Observation]]
) -> int | None:
    """The first step where the door shows the viewer something else for ``deck``
    than for the pair's first deal (``None``: never)."""
    for step, (x, y) in enumerate(zip(door(pair, pair.first), door(pair, deck), strict=True)):
        if x != y:
            return step
    return None


def check_door(
    door: Callable[[Pair, Sequence[str]], Iterator[Observation]],
    kind: str,
    name: str,
    *,
    few: bool = False,
) -> int:
    """Assert the door hides the pairs' hidden cards and shows a control's seen one;
    returns the number of steps compared. ``few``: only the first pair of each walk
    (for the slower doors)."""
    compared = 0
    chosen = list(pairs(name, kind))
    if few:
        chosen = [p for k, p in enumerate(chosen) if k == 0 or p.walk != chosen[k - 1].walk]
    assert chosen, f"{name}: no pair of deals found"
    for pair in chosen:
        step = first_difference(pair, pair.hidden, door)
        assert step is None, f"{pair.note}: {door.__name__} tells the deals apart at step {step}"
        compared += len(pair.actions) + 1
    # the control: a card the viewer saw, exchanged, must show through the door
    assert any(first_difference(p, p.seen, door) is not None for p in chosen), (
        f"{name}: {door.__name__} missed the control"
    )
    return compared


# ---------------------------------------------------------------------------------------
# Doors over a Round: the library, PettingZoo, OpenSpiel


def _refusals(game: Game, ids: list[int]) -> list[str | None]:
    out: list[str | None] = []
    for aid in ids:
        try:
            game.verify(aid)
        except IllegalActionError as exc:
            out.append(exc.reason)
        else:
            out.append(None)
    return out


def library_round(pair: Pair, deck: Sequence[str]) -> Iterator[Observation]:
    game = build("round", pair.name, pair.players, pair.seed, deck)
    assert isinstance(game, Round)
    t = Turns(game, shuffle_seed=pair.seed)
    rng = random.Random(0)
    v = pair.viewer
    for aid in (None, *pair.actions):
        if aid is not None:
            t.step(aid)
        ids = battery(game, v, rng)
        yield (
            game.view(v),
            game.public_view(),
            game.phase_seen_by(v),
            game.legal_action_ids(v),
            round_public(game),
            repr(game),
            _refusals(game, ids),
            t.actor,
            t.reacting,
            t.legal() if t.actor == v else None,
        )


def pettingzoo(pair: Pair, deck: Sequence[str]) -> Iterator[Observation]:
    from cambio.rl import pettingzoo_env

    env = pettingzoo_env.env(variant=pair.name, players=pair.players)
    env.reset(seed=pair.walk, options={"deck": list(deck)})
    raw = env.unwrapped
    assert round_of(raw.game).seed == pair.seed
    agent = f"player_{pair.viewer}"
    for aid in (None, *pair.actions):
        if aid is not None:
            env.step(aid)
        obs = env.observe(agent)
        yield (
            obs["observation"].tobytes(),
            obs["action_mask"].tobytes(),
            env.agent_selection,
            dict(env.rewards),
            dict(env.terminations),
            dict(env.truncations),
            json.dumps(env.infos, sort_keys=True, default=str),
        )


def openspiel(pair: Pair, deck: Sequence[str]) -> Iterator[Observation]:
    pyspiel = pytest.importorskip("pyspiel")
    import numpy as np

    import cambio.openspiel as cos

    game = pyspiel.load_game(f"python_cambio(variant={pair.name},players={pair.players})")
    state = game.new_initial_state()
    index = {str(c): k for k, c in enumerate(game.cards)}
    for card in deck:
        state.apply_action(index[card])
    if state.is_chance_node():  # the round's seed, drawn as chance bytes
        for byte in pair.seed.to_bytes(cos.SEED_BYTES, "big"):
            state.apply_action(byte)
    assert not state.is_chance_node()
    v = pair.viewer
    for aid in (None, *pair.actions):
        if aid is not None:
            state.apply_action(aid)
        yield (
            state.information_state_string(v),
            state.observation_string(v),
            np.asarray(state.information_state_tensor(v), np.float32).tobytes(),
            np.asarray(state.observation_tensor(v), np.float32).tobytes(),
            state.current_player(),
            state.legal_actions(v) if state.current_player() == v else None,
            state.is_terminal(),
        )


# ---------------------------------------------------------------------------------------
# Doors over a Match: the library, cambio engine, cambio serve


def library_match(pair: Pair, deck: Sequence[str]) -> Iterator[Observation]:
    game = build("match", pair.name, pair.players, pair.seed, deck)
    assert isinstance(game, Match)
    rng = random.Random(0)
    v = pair.viewer
    per = game.space.per_player
    for aid in (None, *pair.actions):
        if aid is not None and aid < game.space.size:
            game.apply(aid)
        base = v * per
        ids = [base + k for k in range(7)] + rng.sample(range(base, base + per), min(24, per))
        yield (
            game.view(v),
            game.legal_action_ids(v),
            game.to_act,
            game.reactors,
            game.totals,
            game.team_totals,
            game.eliminated,
            game.records,
            game.is_over,
            game.result,
            game.round_number,
            game.dealer,
            game.starter,
            game.round_seats,
            game.events,
            repr(game),
            round_public(game.round),
            game.round.public_view(),
            _refusals(game, ids),
        )


def _line(engine: Engine, message: dict[str, Any]) -> str:
    out = io.StringIO()
    serve_lines(io.StringIO(json.dumps(message) + "\n"), out, engine)
    return out.getvalue()


def engine_protocol(pair: Pair, deck: Sequence[str]) -> Iterator[Observation]:
    engine = Engine()
    created = json.loads(
        _line(
            engine,
            {
                "type": "create",
                "variant": pair.name,
                "players": pair.players,
                "seed": pair.seed,
                "decks": [list(deck)],
            },
        )
    )
    assert created["type"] == "created", created
    table = created["table"]
    v = pair.viewer
    shadow = build("match", pair.name, pair.players, pair.seed, deck)
    per = shadow.space.per_player
    at = 0
    for aid in (None, *pair.actions):
        received: list[str] = []
        if aid is not None and aid < shadow.space.size:
            who = aid // per
            reply = _line(
                engine, {"type": "act", "table": table, "seat": who, "action": aid, "at": at}
            )
            assert json.loads(reply)["type"] == "acted", reply
            shadow.apply(aid)
            at += 1
            if who == v:
                received.append(reply)
        received.append(_line(engine, {"type": "view", "table": table, "seat": v}))
        received.append(_line(engine, {"type": "events", "table": table, "seat": v}))
        legal = set(shadow.legal_action_ids(v))
        for k in (0, 1, 2, 3, 4, 5, 6):  # its simple actions, answered with a refusal
            if v * per + k not in legal:
                received.append(
                    _line(
                        engine,
                        {"type": "act", "table": table, "seat": v, "action": v * per + k, "at": at},
                    )
                )
        yield received


class _Socket:
    """One WebSocket of a seat or spectator: replies in order, updates kept aside (the
    messages are checked against the schema in :mod:`test_server`)."""

    def __init__(self, client: Any, token: str) -> None:
        self._cm = client.websocket_connect(f"/ws?token={token}")
        self.ws = self._cm.__enter__()
        self.updates: list[dict[str, Any]] = []
        self.receive()  # the update sent on connecting

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = self.ws.receive_json()
        if message["type"] == "update":
            self.updates.append(message)
        return message

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        self.ws.send_text(json.dumps(message))
        while True:
            reply = self.receive()
            if reply["type"] != "update":
                return reply

    def wait(self, at: int) -> None:
        while not (self.updates and self.updates[-1]["view"]["at"] >= at):
            self.receive()

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def serve(pair: Pair, deck: Sequence[str]) -> Iterator[Observation]:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from cambio.server.app import ServerConfig, create_app

    with tempfile.TemporaryDirectory() as folder:
        config = ServerConfig(
            store=Path(folder) / "tables",
            max_tables=4,
            actions_per_second=10_000,
            bot_delay=0.0,
        )
        with TestClient(create_app(config)) as client:
            response = client.post(
                "/api/tables",
                json={
                    "variant": pair.name,
                    "players": pair.players,
                    "seed": pair.seed,
                    "decks": [list(deck)],
                },
            )
            assert response.status_code == 201, response.text
            made = response.json()
            secrets = [made["spectator"], *made["tokens"].values(), made["table"]]
            seats = {int(s): _Socket(client, token) for s, token in made["tokens"].items()}
            watcher = _Socket(client, made["spectator"])
            v = pair.viewer
            shadow = build("match", pair.name, pair.players, pair.seed, deck)
            per = shadow.space.per_player

            def text(messages: list[dict[str, Any]]) -> str:
                out = json.dumps(messages, sort_keys=True)
                for secret in secrets:
                    out = out.replace(secret, "-")
                return out

            try:
                at = 0
                seen = (0, 0)
                for aid in (None, *pair.actions):
                    replies: list[dict[str, Any]] = []
                    if aid is not None and aid < shadow.space.size:
                        who = aid // per
                        reply = seats[who].send({"type": "act", "action": aid, "at": at})
                        assert reply["type"] == "acted", reply
                        shadow.apply(aid)
                        at += 1
                        if who == v:
                            replies.append(reply)
                        for s in (seats[v], watcher):
                            s.wait(at)
                    legal = set(shadow.legal_action_ids(v))
                    for k in (0, 2, 5):
                        if v * per + k not in legal:
                            replies.append(
                                seats[v].send({"type": "act", "action": v * per + k, "at": at})
                            )
                    mine = seats[v].updates[seen[0] :]
                    theirs = watcher.updates[seen[1] :]
                    seen = (len(seats[v].updates), len(watcher.updates))
                    yield text(mine + replies), text(theirs)
            finally:
                for s in (*seats.values(), watcher):
                    s.close()


# ---------------------------------------------------------------------------------------
# The tests


@pytest.mark.parametrize("name", PROFILES)
def test_round_doors_hide_unseen_cards(name: str) -> None:
    compared = 0
    for door in (library_round, pettingzoo, openspiel):
        compared += check_door(door, "round", name)
    assert compared >= 3 * 5, (name, compared)


@pytest.mark.parametrize("name", PROFILES)
def test_match_doors_hide_unseen_cards(name: str) -> None:
    compared = 0
    for door in (library_match, engine_protocol):
        compared += check_door(door, "match", name)
    compared += check_door(serve, "match", name, few=True)
    assert compared >= 3 * 5, (name, compared)


def test_the_pairs_draw_powers_of_every_shape_privately() -> None:
    """On a table whose powers act when drawn, the held card of another player is
    exchanged for cards of every other power, and the pairs play on after the draw."""
    rules = cambio.load_ruleset("draw-power")
    shapes = {p.name for p in rules.powers.table}
    for kind in ("round", "match"):
        covered = set()
        for pair in pairs("draw-power", kind):
            for deck in (pair.first, pair.hidden):
                game = build(kind, "draw-power", pair.players, pair.seed, deck)
                t = Turns(game, shuffle_seed=pair.seed)
                for aid in pair.actions:
                    t.step(aid)
                    r = round_of(game)
                    if r._power_now is not None and r._known[r._power_card] != r._ALL:
                        covered.add(r._power_now.name)
        assert covered == shapes, (kind, shapes - covered)

"""`cambio play` over a whole match: saving and resuming, fair snapping, what others saw."""

from __future__ import annotations

import io
import itertools
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

import cambio
from cambio import play as play_module
from cambio.actions import Action, ActionKind
from cambio.bots import MemoryBot, RandomBot
from cambio.events import EventKind
from cambio.match import Match
from cambio.play import opponents_seen, play
from cambio.views import PlayerView
from piped import cambio_command

# Commands that fit most moments: draw, discard the draw, skip a power, call; a blank line
# lets a snap go.
SIMPLE = "d\nx\nk\n\nc\n"


pytestmark = pytest.mark.usefixtures("fresh_folder")


def cambio_play(args: list[str], script: str) -> subprocess.CompletedProcess[str]:
    return cambio_command(["play", *args], script, timeout=300)


def ending(out: str) -> str:
    """The match's last screen: from its final round's end to the winner."""
    return out[out.rindex("The round is over") :].split("The save ")[0]


def saved(name: str) -> Path:
    """Where a game is saved by default (the tests' data folder)."""
    return Path(os.environ["XDG_DATA_HOME"]) / "cambio" / "saves" / name


def test_a_whole_elimination_match_is_played_to_its_winner() -> None:
    done = cambio_play(["--variant", "elimination", "--seed", "3"], SIMPLE * 200)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "A whole match: a player whose total reaches 100 is out" in out
    assert "Round 1: Robin deals, Alex starts." in out
    assert "Round 2:" in out
    assert "After round 1: totals You" in out
    assert "is out (total" in out or "are out (total" in out
    last = ending(out)
    assert "The match is over after" in last
    assert "(last player standing)" in last or "(everyone crossed the limit" in last
    assert last.count("wins the match") + last.count("share the match") == 1
    assert "Input ended" not in out


def test_round_plays_a_single_round() -> None:
    done = cambio_play(["--variant", "elimination", "--seed", "3", "--round"], SIMPLE * 200)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("The round is over") == 1
    assert "Round 2:" not in done.stdout
    assert "The match is over" not in done.stdout


def lines(script: str) -> list[str]:
    return script.splitlines(keepends=True)


@pytest.mark.parametrize(("table", "cut", "stop"), [("elimination", 6, "q\n"), ("snap", 9, "")])
def test_leaving_then_resuming_ends_as_an_uninterrupted_game(
    table: str, cut: int, stop: str
) -> None:
    script = lines(SIMPLE * 200)
    whole = cambio_play(["--variant", table, "--seed", "5"], "".join(script))
    assert whole.returncode == 0, whole.stderr

    first = cambio_play(
        ["--variant", table, "--seed", "5", "--save", "game.json"], "".join(script[:cut]) + stop
    )
    assert first.returncode == 0, first.stderr
    again = f"{sys.executable} -m cambio play --resume game.json"
    assert f"The game is saved in game.json; continue it with: {again}" in first.stdout
    assert ("You left the table." if stop else "Input ended before the game did.") in first.stdout
    saved = json.loads(Path("game.json").read_text())
    assert saved["format"] == play_module.SAVE_FORMAT and saved["seed"] == 5

    second = cambio_play(["--resume", "game.json"], "".join(script[cut:]))
    assert second.returncode == 0, second.stderr
    assert "The saved game is restored" in second.stdout
    assert ending(second.stdout) == ending(whole.stdout)
    # the restored part is not printed again
    assert "Your opening peek" not in second.stdout.split("The saved game is restored")[0]


def test_leaving_twice_and_resuming_twice() -> None:
    script = lines(SIMPLE * 200)
    whole = io.StringIO()
    play("snap", seed=11, stdin=io.StringIO("".join(script)), stdout=whole)
    assert play("snap", seed=11, stdin=io.StringIO("".join(script[:5])), stdout=io.StringIO()) == 0
    save = saved("cambio-snap-11.json")
    assert save.exists()
    assert play(resume=save, stdin=io.StringIO("".join(script[5:12])), stdout=io.StringIO()) == 0
    out = io.StringIO()
    assert play(resume=save, stdin=io.StringIO("".join(script[12:])), stdout=out) == 0
    assert ending(out.getvalue()) == ending(whole.getvalue())


def test_a_bad_save_is_one_line_of_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "cambio-play/1", "rules": {}}')
    done = cambio_play(["--resume", str(bad)], "")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "bad.json" in done.stderr
    assert "Traceback" not in done.stderr
    missing = cambio_play(["--resume", "nowhere.json"], "")
    assert missing.returncode == 1 and "nowhere.json" in missing.stderr


def test_a_save_whose_answers_do_not_fit_is_refused() -> None:
    assert play("practice", seed=2, stdin=io.StringIO("d\n"), stdout=io.StringIO()) == 0
    save = saved("cambio-practice-2.json")
    data = json.loads(save.read_text())
    data["answers"] = [Action.give(0, 1).to_dict(), *data["answers"]]
    save.write_text(json.dumps(data))
    with pytest.raises(cambio.SaveError, match=r"\$\.answers\[0\]: P0 give"):
        play(resume=save, stdin=io.StringIO(""), stdout=io.StringIO())


# --- fair snapping ---------------------------------------------------------------------

SNAPPING = [
    name for name in cambio.available_variants() if cambio.load_ruleset(name).snap.when != "never"
]

_WINDOW = {EventKind.REPLACE, EventKind.DISCARD, EventKind.EXCHANGE, EventKind.FAILED_EXCHANGE}


def window_of(match: Match) -> tuple[int, int]:
    view = match.view(0).round
    assert view is not None
    return match.round_number, sum(1 for e in view.history if e.kind in _WINDOW)


ORIGINAL_REACT = play_module.TerminalPlayer.react


class Record:
    """What the fairness test watches: when you were asked, and every bot snap."""

    def __init__(self) -> None:
        self.matches: list[Match] = []
        self.asked: set[tuple[int, int]] = set()
        self.bot_snaps = 0
        self.unasked: list[str] = []
        self.you_could = 0

    def check(self, match: Match, actions: Iterable[Action]) -> None:
        bots = [a for a in actions if a.kind is ActionKind.SNAP and a.player != 0]
        if not bots:
            return
        self.bot_snaps += len(bots)
        if 0 in match.reactors:
            self.you_could += 1
            if window_of(match) not in self.asked:
                self.unasked.append(f"{bots} at {window_of(match)}")


def watched_game(
    monkeypatch: pytest.MonkeyPatch,
    table: str,
    seed: int,
    script: str,
    snap: str = "ask",
    eager: bool = False,
) -> tuple[Record, str]:
    """Play with the game's Match and your snap prompt watched; ``eager`` bots snap often."""
    record = Record()
    if eager:
        monkeypatch.setattr(play_module, "MemoryBot", lambda: RandomBot(snap_rate=0.5))
    else:
        monkeypatch.setattr(play_module, "MemoryBot", MemoryBot)

    class Watched(Match):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            record.matches.append(self)

        def apply(self, action: Action | int) -> list[cambio.Event]:
            assert isinstance(action, Action)
            record.check(self, [action])
            return super().apply(action)

        def resolve_snaps(self, actions: Iterable[Action | int]) -> list[cambio.Event]:
            given = list(actions)
            record.check(self, [a for a in given if isinstance(a, Action)])
            return super().resolve_snaps(given)

    def react(
        self: play_module.TerminalPlayer, view: PlayerView, snaps: Sequence[Action]
    ) -> Action | None:
        record.asked.add(window_of(record.matches[-1]))
        return ORIGINAL_REACT(self, view, snaps)

    monkeypatch.setattr(play_module, "Match", Watched)
    monkeypatch.setattr(play_module.TerminalPlayer, "react", react)
    out = io.StringIO()
    assert play(table, seed=seed, stdin=io.StringIO(script), stdout=out, snap=snap) == 0
    return record, out.getvalue()


@pytest.mark.parametrize("table", SNAPPING)
def test_you_are_asked_before_any_bot_snap_is_applied(
    monkeypatch: pytest.MonkeyPatch, table: str
) -> None:
    """On every discard you may snap, you are asked before a bot's snap is applied."""
    snaps = could = asked = 0
    for seed in range(6):
        rng = random.Random(seed)
        words = ["d", "x", "k", "", "", "t", "r 1", "c", "n 1", "n 2", "g 1", "p 1 1"]
        words += ["o 1 2", "o 3", "o 4", "o 3 4"]
        script = "\n".join(rng.choice(words) for _ in range(1500)) + "\n"
        record, _out = watched_game(monkeypatch, table, seed, script, eager=seed % 2 == 1)
        assert record.unasked == [], record.unasked
        snaps += record.bot_snaps
        could += record.you_could
        asked += len(record.asked)
    assert snaps > 0 and asked > 0  # the bots did snap, you were asked: not vacuous
    if cambio.load_ruleset(table).snap.when in ("any-time", "after-other-discard"):
        assert could > 0  # bots snapped where you could have snapped too


def test_snapping_profiles_are_the_snapping_tables() -> None:
    assert {"snap", "penalty", "elimination", "draw-power"} <= set(SNAPPING)


def test_known_prompts_only_when_you_know_a_match(monkeypatch: pytest.MonkeyPatch) -> None:
    prompts: list[bool] = []

    def react(
        self: play_module.TerminalPlayer, view: PlayerView, snaps: Sequence[Action]
    ) -> Action | None:
        prompts.append(play_module._known_match(view, self.rules))
        return ORIGINAL_REACT(self, view, snaps)

    monkeypatch.setattr(play_module.TerminalPlayer, "react", react)
    script = (SIMPLE + "p 1\n") * 300
    for seed in range(4):
        play("snap", seed=seed, stdin=io.StringIO(script), stdout=io.StringIO(), snap="known")
    assert prompts and all(prompts)
    asked = io.StringIO()
    play("snap", seed=0, stdin=io.StringIO(script), stdout=asked, snap="ask")
    never = io.StringIO()
    play("snap", seed=0, stdin=io.StringIO(script), stdout=never, snap="never")
    assert "snap? " in asked.getvalue()
    assert "snap? " not in never.getvalue()


@pytest.mark.parametrize("key", ["", "-", "k"])
def test_one_keystroke_lets_a_snap_go(key: str) -> None:
    rules = cambio.load_ruleset("snap")
    rnd = cambio.Round(rules, seed=3)
    rng = random.Random(3)
    while 0 not in rnd.reactors:
        rnd.apply(rng.choice([a for a in rnd.legal_actions() if a.kind is not ActionKind.SNAP]))
    out = io.StringIO()
    term = play_module.Terminal(io.StringIO(key + "\nn 1\n"), out)
    person = play_module.TerminalPlayer(term, rules, ["You", "Robin", "Alex", "Sam"])
    snaps = [a for a in rnd.legal_actions(0) if a.kind is ActionKind.SNAP]
    assert person.react(rnd.view(0), snaps) is None
    assert out.getvalue().count("snap? ") == 1
    assert person.answers == [None]


# --- what the others saw of your cards --------------------------------------------------


@pytest.mark.parametrize("table", ["practice", "snap", "penalty", "elimination", "teams"])
def test_marks_match_what_each_opponent_knows(table: str) -> None:
    """A mark for an opponent on your position exactly when that opponent knows the card."""
    checked = 0
    for seed in range(12):
        rnd = (
            cambio.Round(table, seed=seed)
            if False
            else cambio.Round(cambio.load_ruleset(table), seed=seed)
        )
        rng = random.Random(seed)
        while not rnd.is_over:
            view = rnd.view(0)
            marks = opponents_seen(view)
            for o in range(1, rnd.players):
                theirs = rnd.view(o).grids[0]
                for i, here in enumerate(view.present[0]):
                    pos = i + 1
                    knows = here and theirs[i] is not None
                    assert knows == (o in marks.get(pos, ())), (seed, o, pos, marks)
                    checked += knows
            rnd.apply(rng.choice(rnd.legal_actions()))
    assert checked > 0


def test_the_board_names_who_saw_your_cards() -> None:
    rules = cambio.load_ruleset("practice")
    for seed in itertools.count():
        rnd = cambio.Round(rules, seed=seed)
        rng = random.Random(seed)
        while not rnd.is_over and not opponents_seen(rnd.view(0)):
            rnd.apply(rng.choice(rnd.legal_actions()))
        if not rnd.is_over:
            break
    view = rnd.view(0)
    text = play_module.board_text(view, ["You", "Robin", "Alex"], rules, str)
    (pos, who), *_ = sorted(opponents_seen(view).items())
    names = ", ".join(["You", "Robin", "Alex"][o] for o in who)
    assert f"seen by others: [{pos}] {names}" in text


def test_a_bad_position_lists_a_handful_of_examples() -> None:
    out = io.StringIO()
    play("snap", seed=1, players=6, stdin=io.StringIO("d\np 9 9\nx\np 9 9\n"), stdout=out)
    text = out.getvalue()
    for line in text.splitlines():
        if line.startswith("Not those positions"):
            assert line.count(",") <= 4
            assert "more)" in line or line.count(",") < 4

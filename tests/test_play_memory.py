"""`cambio play` from memory (the default): once a card is hidden, no output names it.

Every decision point of a game is recorded with the true cards in the grids at that
moment. Between two decision points the text printed may name a card that changes
hands there (a draw, a replacement, a take), and a look you just took until you press
Enter; it must not name a card that lies face down in a grid before and after. With
learner's aids (``aids=True``) the same check finds the cards you have seen.
"""

from __future__ import annotations

import io
import itertools
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cambio import Card, PlayerView, load_ruleset
from cambio.derived import derived
from cambio.play import TerminalPlayer, _Game, play


class Player(io.StringIO):
    """Standard input that answers what the game asks, from the text printed so far:
    it peeks and swaps whenever it may, looks at the board and the history, and calls
    after a dozen turns."""

    def __init__(self, out: io.StringIO, seed: int) -> None:
        super().__init__()
        self.out = out
        self.rng = random.Random(seed)
        self.turns = 0
        self.stuck = 0
        self.looks = ["h\n", "b\n"]

    def readline(self, size: int | None = -1) -> str:
        del size
        rng = self.rng
        asked = self.out.getvalue().rsplit("\n", 2)[-2:]
        last = " ".join(asked)
        if "Press Enter" in last:
            return "\n"
        if "Choose which positions" in last:
            return "o " + last.split("/ o ")[-1].split(",")[0].split(".")[0].strip() + "\n"
        if "p POS = peek at your card" in last:
            return f"p {rng.randint(1, 4)}\n"
        if "p PLAYER POS" in last:
            return f"p {rng.randint(0, 2)} {rng.randint(1, 4)}\n"
        if "s PLAYER POS" in last:
            return f"s {rng.randint(1, 4)} {rng.randint(1, 2)} {rng.randint(1, 4)}\n"
        if "x = discard it and use its power" in last:
            return "x\n"
        if "r POS" in last:
            return rng.choice(["r 1\n", "r 2\n", "r 3\n", "r 4\n", "x\n"])
        if "d = draw" in last:
            if self.looks:
                return self.looks.pop()
            self.turns += 1
            self.stuck = 0
            if self.turns > 12 and "c = call" in last:
                return "c\n"
            return rng.choice(["d\n", "d\n", "d\n", "t\n", "h\n", "b\n"])
        self.stuck += 1
        return "k\n" if self.stuck < 50 else "q\n"


pytestmark = pytest.mark.usefixtures("fresh_folder")


def recorded_game(
    monkeypatch: pytest.MonkeyPatch, table: str, seed: int, *, aids: bool
) -> tuple[str, list[tuple[int, frozenset[Card]]]]:
    """The transcript and, at each decision point, (offset, the cards in every grid)."""
    out = io.StringIO()
    marks: list[tuple[int, frozenset[Card]]] = []
    step = _Game._step

    def recording(game: _Game) -> object:
        rnd = game.match.round
        cards = {c for p in range(rnd.players) for c in rnd.hand(p) if c is not None}
        marks.append((len(out.getvalue()), frozenset(cards)))
        return step(game)

    monkeypatch.setattr(_Game, "_step", recording)
    play(table, seed=seed, stdin=Player(out, seed), stdout=out, aids=aids, whole_match=False)
    return out.getvalue(), marks


def leaks(text: str, marks: list[tuple[int, frozenset[Card]]]) -> Iterator[tuple[str, str]]:
    """(card, line) for every line that names a card face down on both sides of it."""
    end = text.find("The round is over")
    end = len(text) if end < 0 else end
    for (start, before), (stop, after) in itertools.pairwise([*marks, (end, frozenset())]):
        hidden = before & after
        lines = text[start:stop].splitlines()
        for i, line in enumerate(lines):
            if "Press Enter to hide" in line:
                continue
            if i + 1 < len(lines) and "Press Enter to hide" in lines[i + 1]:
                continue  # the look itself, on screen until Enter
            for card in hidden:
                if card.pretty() in line:
                    yield card.pretty(), line


@pytest.mark.parametrize(
    ("table", "seed"),
    [("practice", s) for s in (0, 2, 3, 4, 5, 6)] + [("re-peek", 0), ("one-peek", 0), ("blind", 8)],
)
def test_from_memory_no_output_names_a_hidden_card(
    monkeypatch: pytest.MonkeyPatch, table: str, seed: int
) -> None:
    text, marks = recorded_game(monkeypatch, table, seed, aids=False)
    assert len(marks) > 10
    assert "The round is over" in text
    after = text[max(0, text.find("Press Enter to hide them and begin.")) :]
    assert after.count("Remember it. Press Enter to hide it.") >= 1  # looks to hide
    assert "Move history" in after and "P0 You" in after
    assert list(leaks(text, marks)) == []
    # the board shows only position numbers for every grid card
    for line in after[: after.find("The round is over")].splitlines():
        if line.startswith(("P0 You", "P1 Robin", "P2 Alex")) or line.startswith(" " * 8 + "["):
            cells = re.findall(r"\[\d+\] (\S+)", line)
            assert cells and set(cells) <= {"??", "--"}, line


def test_with_learners_aids_the_seen_cards_stay_on_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, marks = recorded_game(monkeypatch, "practice", 0, aids=True)
    assert "Learner's aids on" in text
    assert "Press Enter to hide" not in text
    assert list(leaks(text, marks)), "the check finds the cards aids show"


def test_the_hide_prompt_waits_for_a_line_and_q_leaves() -> None:
    out = io.StringIO()
    assert play("practice", seed=3, stdin=io.StringIO("q\n"), stdout=out) == 0
    text = out.getvalue()
    assert "Press Enter to hide them and begin." in text
    assert "You left the table." in text
    assert "Your turn" not in text


def test_aids_are_kept_by_the_save(tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    out = io.StringIO()
    play("practice", seed=3, stdin=io.StringIO("d\nq\n"), stdout=out, aids=True, save_to=save)
    again = io.StringIO()
    play(resume=save, stdin=io.StringIO("q\n"), stdout=again)
    assert "practice table, learner's aids on" in again.getvalue()


@pytest.mark.parametrize(("table", "seed"), [("practice", 0), ("practice", 3), ("blind", 8)])
def test_from_memory_the_history_names_only_cards_face_up_now(
    monkeypatch: pytest.MonkeyPatch, table: str, seed: int
) -> None:
    """Buried discards and cards gone into grids are not named by ``h``."""
    out = io.StringIO()
    shown: list[tuple[str, set[Card]]] = []
    history = TerminalPlayer._show_history

    def recording(person: TerminalPlayer, view: PlayerView) -> None:
        start = len(out.getvalue())
        history(person, view)
        visible = {c for c in (view.top_discard, view.holding) if c is not None}
        shown.append((out.getvalue()[start:], visible))

    monkeypatch.setattr(TerminalPlayer, "_show_history", recording)
    play(table, seed=seed, stdin=Player(out, seed), stdout=out, whole_match=False)
    deck = set(derived(load_ruleset(table)).cards)
    assert len(shown) >= 2
    assert any("a card" in text for text, _ in shown)  # named at the time, not now
    for text, visible in shown:
        for card in deck - visible:
            assert card.pretty() not in text, (card, text)

"""The Node.js client in examples/ drives ``cambio engine`` and plays a round."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(
    shutil.which("node") is None and os.environ.get("CI") != "true",
    reason="node is not installed (CI installs it and runs this test)",
)
@pytest.mark.parametrize(("variant", "seed"), [("practice", 7), ("snap", 3)])
def test_node_client_plays_a_round(variant: str, seed: int) -> None:
    node = shutil.which("node")
    assert node is not None, "CI must have node: .ci/run installs it"
    done = subprocess.run(
        [
            node,
            str(ROOT / "examples" / "node_client.mjs"),
            "--variant",
            variant,
            "--seed",
            str(seed),
            "--engine",
            f"{sys.executable} -m cambio engine",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("cambio-rules ") and "protocol 1" in lines[0]
    assert f"table t1: {variant}, 3 players, seed {seed}" in lines[1]
    assert "a bad action is refused: error illegal-action" in lines
    assert lines[-2].startswith("round over after ")
    assert lines[-1].startswith("scores: ") and "winners: P" in lines[-1]

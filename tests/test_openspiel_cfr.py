"""CFR+ solves the micro table: the example's exploitability falls below a bound that
the uniform random policy exceeds.

The example (``examples/cfr_micro.py``) is run as a user runs it, for five iterations
(a few seconds); its NashConv lines are read back.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOUND = 0.2
"""The uniform policy's NashConv on micro is about 0.64; five CFR+ iterations bring it
to about 0.08."""


def test_cfr_plus_exploitability_on_micro_falls_below_the_bound() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "cfr_micro.py"), "--iterations", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    found = re.findall(r"iteration\s+(\d+)\s+NashConv ([0-9.]+)", proc.stdout)
    conv = {int(i): float(v) for i, v in found}
    assert sorted(conv) == [0, 5], proc.stdout
    assert conv[0] > BOUND, f"the uniform policy should exceed {BOUND}: {proc.stdout}"
    assert conv[5] < BOUND, f"CFR+ should fall below {BOUND}: {proc.stdout}"
    assert conv[5] < conv[0] / 4

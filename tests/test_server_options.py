"""``cambio serve``'s limits: a value that would switch a guard off is refused, by the
command line (argparse's error, exit 2) and by :class:`ServerConfig` itself."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("starlette")

from cambio.server.app import ServerConfig


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--checkpoint-seconds", "-1", "is not a positive number"),
        ("--checkpoint-seconds", "nan", "is not a positive number"),
        ("--requests-per-second", "inf", "is not a positive number"),
        ("--actions-per-second", "0", "is not a positive number"),
        ("--send-queue", "0", "is not a whole number of at least 1"),
        ("--max-tables", "2.5", "is not a whole number"),
        ("--max-bytes", "lots", "is not a whole number"),
        ("--bot-delay", "-0.1", "is not a number of at least 0"),
        ("--port", "70000", "is not a port"),
    ],
)
def test_a_bad_limit_on_the_command_line_is_refused_before_anything_starts(
    option: str, value: str, says: str, tmp_path: object
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cambio", "serve", "--store", str(tmp_path), option, value],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert f"argument {option}: {value!r} {says}" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("checkpoint_seconds", float("nan"), ValueError),
        ("send_timeout", float("inf"), ValueError),
        ("send_queue", 0, ValueError),
        ("bot_workers", -1, ValueError),
        ("max_tables", 2.5, TypeError),
        ("max_bytes", True, TypeError),
        ("requests_per_second", "10", TypeError),
    ],
)
def test_server_config_refuses_a_limit_that_means_nothing(
    field: str, value: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match=f"ServerConfig.{field} must be"):
        ServerConfig(**{field: value})  # type: ignore[arg-type]


def test_zero_is_a_wait_and_a_worker_count() -> None:
    config = ServerConfig(bot_delay=0, bot_workers=0)
    assert config.bot_delay == 0 and config.bot_workers == 0

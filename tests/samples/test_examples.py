"""The ports of the official runtime samples (examples/) run and print what they should.

Each port is a script: it runs in a fresh interpreter, as a learner would run it, and its
stdout must equal the ``<name>.expected.txt`` kept beside it (the sandbox is deterministic,
so nothing needs masking).  examples/README.md lists every official sample; every port must
be linked there, and every link must name a port that exists.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PORTS = sorted(p for p in EXAMPLES.rglob("*.py") if not p.name.startswith("_"))


def _id(path: Path) -> str:
    return path.relative_to(EXAMPLES).as_posix()


def run_port(path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [sys.executable, str(path)], cwd=path.parent, env=env, capture_output=True, text=True, timeout=120
    )


def output_difference(expected: str, actual: str, name: str) -> str:
    """'' when the two outputs agree, else a unified diff naming the port."""
    if expected == actual:
        return ""
    return "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            f"{name}.expected.txt",
            f"{name} (this run)",
        )
    )


def test_there_are_ports_to_run():
    assert PORTS, f"no ports found under {EXAMPLES}"


@pytest.mark.parametrize("path", PORTS, ids=_id)
def test_a_port_prints_its_expected_output(path: Path):
    expected_file = path.with_suffix(".expected.txt")
    assert expected_file.exists(), f"{_id(path)} has no {expected_file.name} beside it"
    result = run_port(path)
    assert result.returncode == 0, f"{_id(path)} exited with {result.returncode}:\n{result.stderr}"
    assert result.stderr == "", f"{_id(path)} wrote to stderr (a warning?):\n{result.stderr}"
    diff = output_difference(expected_file.read_text(), result.stdout, _id(path))
    assert not diff, diff


def test_a_changed_output_is_reported():
    assert output_difference("a\nb\n", "a\nb\n", "x") == ""
    assert "-b" in output_difference("a\nb\n", "a\nc\n", "x")


def _readme_links() -> set[str]:
    text = (EXAMPLES / "README.md").read_text()
    return {m for m in re.findall(r"\]\(([^)\s]+\.py)\)", text)}


def test_the_readme_links_every_port():
    links = _readme_links()
    missing = sorted(_id(p) for p in PORTS if _id(p) not in links)
    assert not missing, f"examples/README.md does not link these ports: {missing}"


def test_every_port_the_readme_links_exists():
    dangling = sorted(link for link in _readme_links() if not (EXAMPLES / link).is_file())
    assert not dangling, f"examples/README.md links ports that do not exist: {dangling}"


def test_every_expected_output_belongs_to_a_port():
    orphans = sorted(
        p.relative_to(EXAMPLES).as_posix()
        for p in EXAMPLES.rglob("*.expected.txt")
        if not p.with_name(p.name[: -len(".expected.txt")] + ".py").exists()
    )
    assert not orphans, f"expected outputs with no port: {orphans}"


def _line_by_line(path: Path) -> str:
    """A port's source without the synchronizes it adds to the official sample (each follows a
    comment that starts "Not in the official sample")."""
    lines = path.read_text().splitlines(keepends=True)
    out, skip = [], False
    for line in lines:
        if line.strip().startswith("# Not in the official sample"):
            skip = True
            continue
        if skip and "synchronize_stream" in line:
            skip = False
            continue
        out.append(line)
    return "".join(out)


def run_line_by_line(port: Path):
    """Run ``port`` without the synchronizes it adds to its sample; (result, its HazardWarning lines)."""
    source = _line_by_line(port)
    assert source.count("synchronize_stream") == 0 < port.read_text().count("synchronize_stream")
    copy = port.parent / f"_line_by_line_{port.stem}.py"  # beside the port, for its helper modules
    copy.write_text(source)
    try:
        result = run_port(copy)
    finally:
        copy.unlink()
    assert result.returncode == 0, result.stderr
    return result, [line for line in result.stderr.splitlines() if "HazardWarning" in line]


def test_the_d2d_sync_sample_line_by_line_races_and_the_sandbox_says_so():
    result, warnings = run_line_by_line(EXAMPLES / "1_basic_features" / "memory" / "5_d2d_sync_memory_copy.py")
    assert any("aclrtMemcpy" in w and "no event or synchronize orders the two" in w for w in warnings), result.stderr
    assert not any("aclrtFree" in w for w in warnings), result.stderr  # the forced destroy waited for ReadDo


@pytest.mark.parametrize("name", ["7_physical_memory_sharing_withpid", "8_physical_memory_sharing_withoutpid"])
def test_the_sharing_samples_line_by_line_race_on_the_shared_memory_and_the_sandbox_says_so(name):
    """The flag files order the two hosts, not process A's stream: without the port's synchronize,
    A's kernel write is unordered with B's blocking copy through its own mapping of the memory."""
    result, warnings = run_line_by_line(EXAMPLES / "1_basic_features" / "memory" / f"{name}.py")
    assert any("aclrtMemcpy" in w and "no event or synchronize orders the two" in w for w in warnings), result.stderr
    assert "[SUCCESS]" in result.stdout  # the race is reported, the run still ends as the README's

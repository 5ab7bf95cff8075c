"""Every module of the runtime has its tests, and tests/README.md says where they are."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


def read_map(text: str) -> dict[str, list[str]]:
    """module path -> the test files its row in tests/README.md names."""
    rows = re.findall(r"^\| `(sandbox/core/[\w/]+\.py)` \| (.+) \|$", text, flags=re.M)
    return {module: re.findall(r"`([\w/]+\.py)`", tests) for module, tests in rows}


def problems(mapping: dict[str, list[str]], modules: list[str], tests: Path) -> list[str]:
    found = [f"{m} has no row in tests/README.md" for m in modules if m not in mapping]
    found += [f"{m}'s row names no test file" for m, files in mapping.items() if not files]
    for module, files in mapping.items():
        for name in files:
            path = tests / name
            if not path.is_file() or not re.search(r"^def test_", path.read_text(encoding="utf-8"), flags=re.M):
                found.append(f"{module}'s row names {name}, which holds no tests")
    return found


def test_every_core_module_has_a_row_naming_test_files_that_exist():
    modules = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "sandbox" / "core").rglob("*.py") if p.name != "__init__.py"
    )
    assert not problems(read_map((TESTS / "README.md").read_text(encoding="utf-8")), modules, TESTS)


def test_the_map_check_finds_a_module_without_tests(tmp_path):
    (tmp_path / "kernel").mkdir()
    (tmp_path / "kernel" / "test_a.py").write_text("def test_a():\n    pass\n")
    text = "| `sandbox/core/a.py` | `kernel/test_a.py` |\n| `sandbox/core/b.py` | `kernel/test_b.py` |\n"
    modules = ["sandbox/core/a.py", "sandbox/core/b.py", "sandbox/core/c.py"]
    assert problems(read_map(text), modules, tmp_path) == [
        "sandbox/core/c.py has no row in tests/README.md",
        "sandbox/core/b.py's row names kernel/test_b.py, which holds no tests",
    ]

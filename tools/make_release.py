"""Write the learner release of the course: what a Binder or nbgitpuller link should hand out.

    python tools/make_release.py DIR

``DIR`` gets what a learner runs: the package (``sandbox/``, ``pyproject.toml``, ``LICENSE``), the
notebooks in both languages as committed (the exercises' stubs, with the grader's verdict on
them), the ported official samples (``examples/``), Binder's environment (``binder/``) and the
READMEs.  It gets none of the instructor sources (``instructor/``, with the reference solutions),
the solutions and mistakes of the tests (``tests/teach/exercises/``), the tests or the tools.  The
files are the ones git tracks (else every file, less caches and build output).  Push ``DIR`` to a
repository of its own (or a branch) and link to that.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDED = ("sandbox", "notebooks", "examples", "binder", "pyproject.toml", "LICENSE", "README.md", "README.zh-CN.md")
SKIPPED = ("__pycache__", ".ipynb_checkpoints", ".egg-info", ".pyc")
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS")


def _files(root: Path) -> list[Path]:
    """The files of the release, relative to ``root``."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--", *INCLUDED], cwd=root, capture_output=True, text=True, check=True
        ).stdout.splitlines()
        files = [Path(name) for name in listed]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        files = []
        for name in INCLUDED:
            path = root / name
            files += [p.relative_to(root) for p in ([path] if path.is_file() else sorted(path.rglob("*")))]
    return [f for f in files if (root / f).is_file() and not any(s in str(f) for s in SKIPPED)]


def make_release(dest: Path, root: Path = ROOT) -> list[Path]:
    """Copy the learner release into ``dest`` (which must not exist); returns its files."""
    files = _files(root)
    for rel in files:
        if rel.suffix in (".py", ".ipynb") and any(
            m in (root / rel).read_text(encoding="utf-8") for m in SOLUTION_MARKERS
        ):
            raise ValueError(f"{rel} holds a reference solution or a hidden test: it cannot go to learners")
    dest.mkdir(parents=True)
    for rel in files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, dest / rel)
    return files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="a folder that does not exist yet")
    args = parser.parse_args(argv)
    if args.dest.exists():
        print(f"{args.dest} exists: give a new folder", file=sys.stderr)
        return 1
    files = make_release(args.dest)
    print(f"{len(files)} files -> {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

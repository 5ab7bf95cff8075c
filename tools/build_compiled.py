"""Compile the runtime's hot path with mypyc, in place: the optional fast build.

    python tools/build_compiled.py           # build: the checkout now imports the compiled modules
    python tools/build_compiled.py --clean   # remove them: back to plain Python
    python tools/build_compiled.py --check   # say which modules are compiled, and whether they are current

The same sources run either way; plain Python is the default (an editable install imports the
``.py`` files until this is run).  Python prefers an extension module to a ``.py`` file of the same
name, so once built, the compiled modules are what ``import sandbox`` takes, in this checkout only.
A module edited after the build is stale: ``--check`` says so, and the build must run again (the
compiled code would not see the edit).  mypyc comes with mypy (the project's type checker), and the
build needs a C compiler and Python's headers.  ``benchmarks/bench_runtime.py`` gives the gain.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The modules every runtime call goes through (the API path of benchmarks/bench_runtime.py), with
# the classes it reads most (tasks, streams, events, host threads: their fields become C struct
# slots); the rest of the package stays interpreted and calls into them as into any module.  Left
# out on purpose: host_turns (threads hand their turns over while they wait: what one reads back
# another has set), python_threads (it patches threading's methods with its functions, which compiled
# would not bind to their instance) and allocator (ipc.Imported and vmm.Mapping inherit from two of
# its classes at once).  Kernels are native classes that pickle (core/native.py).
MODULES = (
    "sandbox/core/gate.py",
    "sandbox/core/machine.py",
    "sandbox/core/device_loop.py",
    "sandbox/core/hazards.py",
    "sandbox/core/trace.py",
    "sandbox/core/features/events.py",
    "sandbox/core/features/kernels.py",
    "sandbox/core/features/memory_calls.py",
    "sandbox/core/tasks.py",
    "sandbox/core/objects.py",
    "sandbox/core/engines.py",
    "sandbox/core/learner_code.py",
    "sandbox/core/hooks.py",
)


def built() -> list[str]:
    """The compiled modules in the checkout (paths relative to it), mypyc's shared library among them."""
    found = glob.glob(os.path.join(ROOT, "sandbox", "**", "*.so"), recursive=True)
    found += glob.glob(os.path.join(ROOT, "sandbox", "**", "*.pyd"), recursive=True)
    return sorted(os.path.relpath(p, ROOT) for p in found)


def clean() -> None:
    for path in built():
        os.remove(os.path.join(ROOT, path))


def stale() -> list[str]:
    """Compiled modules whose source changed after they were built."""
    out = []
    for path in built():
        source = os.path.join(ROOT, path.split(".")[0] + ".py")
        if os.path.exists(source) and os.path.getmtime(source) > os.path.getmtime(os.path.join(ROOT, path)):
            out.append(os.path.relpath(source, ROOT))
    return out


def build() -> None:
    clean()
    # setuptools reads a pyproject.toml in the directory it runs in; the build runs where there is
    # none, with the package linked in, so that the build needs no newer setuptools than the install.
    with tempfile.TemporaryDirectory(prefix="sandbox-mypyc-") as work:
        os.symlink(os.path.join(ROOT, "sandbox"), os.path.join(work, "sandbox"))
        setup = os.path.join(work, "setup.py")
        mypy_args = ["--config-file", os.path.join(ROOT, "pyproject.toml"), *MODULES]  # the project's mypy settings
        with open(setup, "w") as f:
            f.write(
                "from setuptools import setup\n"
                "from mypyc.build import mypycify\n"
                f"setup(name='sandbox-compiled', ext_modules=mypycify({mypy_args!r}, opt_level='3', "
                "debug_level='0', group_name='sandbox.core.compiled'))\n"
            )
        subprocess.run(
            [sys.executable, setup, "build_ext", "--inplace", "--build-temp", os.path.join(work, "tmp")],
            cwd=work,
            check=True,
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--check", action="store_true", help="list the compiled modules and any stale one")
    args = parser.parse_args(argv)
    if args.clean:
        clean()
        print("plain Python: no compiled module left")
        return 0
    if args.check:
        modules, old = built(), stale()
        print("\n".join(modules) if modules else "plain Python: no compiled module")
        for path in old:
            print(f"stale: {path} changed after the build; run python tools/build_compiled.py again")
        return 1 if old else 0
    build()
    print(f"compiled {len(MODULES)} modules in place; `python tools/build_compiled.py --clean` undoes it")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The notebooks' exercises, one module per notebook: importing a module registers its
exercises with ``sandbox.teach.grading``.  Reference solutions are not here: they live in
the instructor sources (instructor/, between nbgrader's solution markers) and the tests."""

from __future__ import annotations

import importlib
import pkgutil

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if _info.name.startswith("nb"):
        importlib.import_module(f"{__name__}.{_info.name}")

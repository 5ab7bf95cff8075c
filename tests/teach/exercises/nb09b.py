"""Notebook 09b: the reference solution of 09b.1 (the racy pipeline), its mistakes and variants
(written in nb09.py beside the notebook-09 cases they share helpers with)."""

from __future__ import annotations

from . import solutions
from .nb09 import PIPELINE

SOLUTIONS = solutions("09b")
MISTAKES = {"09b.1": PIPELINE["MISTAKES"]}
VARIANTS = {"09b.1": PIPELINE["VARIANTS"]}

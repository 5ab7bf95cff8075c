"""Regenerate the facts table of the real pyACL binding (sandbox/acl/pyacl_binding.json).

    python tools/pyacl_facts.py PATH/TO/python/pyACL --commit SHA [--out FILE]

reads a checkout of the binding (repository hicann/runtime, folder ``python/pyACL/``): every
method table (``py*_methods.cpp`` for a submodule, ``py_init_acl.cpp`` and ``utils_methods.cpp``
for the top level), and for each entry its wrapper's argument format (``PyArg_ParseTuple``), the
formats it builds its results with (``Py_BuildValue``; ``None`` for ``Py_None``), the CANN calls it
makes and the preprocessor condition around the entry.  It writes facts, one line a function, so
that a new snapshot of the binding diffs line by line against the committed table; the ``note``
of a function (what a reader of the wrapper noticed: a list argument, a dict it returns) is kept
from the table it replaces.  ``tests/facade/test_pyacl_conformance.py`` holds the facade to the table.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "sandbox" / "acl" / "pyacl_binding.json"

_ENTRY = re.compile(r'\{\s*"(\w+)"\s*,\s*(?:\(PyCFunction\)\s*)?(\w+)\s*,\s*(METH_\w+(?:\s*\|\s*METH_\w+)*)', re.S)
_WRAPPER = re.compile(r"^PyObject\s*\*\s*(\w+)\s*\(", re.M)
_PARSE = re.compile(r'PyArg_ParseTuple(AndKeywords)?\s*\(\s*\w+\s*,\s*(?:\w+\s*,\s*)?"([^"]*)"', re.S)
_BUILD = re.compile(r'(?:(\w+)\s*=\s*)?Py_BuildValue\s*\(\s*"([^"]*)"')
_RETURN = re.compile(r"\breturn\s+(Py_BuildValue|\w+)\b")
_CALL = re.compile(r"\b((?:acl|hi_)\w*)\s*\(")
_MODULE = re.compile(r"py(\w+)_methods\.cpp$")


def units(fmt: str | None) -> tuple[int, int]:
    """(required, total) arguments of a PyArg_ParseTuple format: one per unit ('s#', 'y*', 'O!',
    'es', a parenthesised tuple ...), '|' starting the optional ones."""
    if not fmt:
        return 0, 0
    fmt = re.split(r"[:;]", fmt, maxsplit=1)[0]
    required: int | None = None
    total, depth, i = 0, 0, 0
    while i < len(fmt):
        c = fmt[i]
        if c == "|":
            required = total
        elif c == "(":
            if depth == 0:
                total += 1
            depth += 1
        elif c == ")":
            depth -= 1
        elif c.isalpha() and depth == 0:
            total += 1
            if c == "e" and i + 1 < len(fmt) and fmt[i + 1] in "st":
                i += 1
        i += 1
    return (total if required is None else required), total


def _tables(files: dict[str, str]):
    """(module, name, wrapper, flags, guard, 'file:line') of every method-table entry, in order."""
    for path, text in files.items():
        match = _MODULE.search(path)
        if match:
            module = match.group(1)
        elif path.endswith(("py_init_acl.cpp", "utils_methods.cpp")):
            module = ""
        else:
            continue
        lines = text.splitlines()
        guards: list[str] = []
        guard_at_line = []
        for line in lines:
            stripped = line.strip()
            if stripped.startswith(("#ifdef", "#if ")):
                guards.append(stripped.split(None, 1)[1].strip())
            elif stripped.startswith("#ifndef"):
                guards.append("!" + stripped.split(None, 1)[1].strip())
            elif stripped.startswith("#endif") and guards:
                guards.pop()
            guard_at_line.append(" && ".join(guards) or None)
        for m in _ENTRY.finditer(text):
            if "PyMethodDef" not in text[: m.start()]:
                continue
            line = text.count("\n", 0, m.start())
            yield (
                module,
                m.group(1),
                m.group(2),
                re.sub(r"\s+", "", m.group(3)),
                guard_at_line[line],
                f"{path}:{line + 1}",
            )


def _body(text: str, start: int) -> str:
    depth, i = 0, text.index("{", start)
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i : j + 1]
    return text[i:]


def _returns(body: str) -> list[str]:
    """The formats a wrapper returns, first seen first: ``return Py_BuildValue("f", ...)``, a
    variable last set from ``Py_BuildValue("f", ...)``, ``Py_None`` ("None"), any other object
    ("O"); ``return nullptr`` (an exception) is none."""
    built: dict[str, str] = {}
    events = sorted(
        [(m.start(), "build", m) for m in _BUILD.finditer(body)]
        + [(m.start(), "return", m) for m in _RETURN.finditer(body)],
        key=lambda e: e[0],
    )
    out: list[str] = []
    for _, what, m in events:
        if what == "build":
            if m.group(1):
                built[m.group(1)] = m.group(2)
            continue
        value = m.group(1)
        if value == "Py_BuildValue":
            fmt = _BUILD.match(body, m.start(1)).group(2)
        elif value in ("nullptr", "NULL"):
            continue
        else:
            fmt = "None" if value == "Py_None" else built.get(value, "O")
        if fmt not in out:
            out.append(fmt)
    return out


def _code_at(body: str) -> int | None:
    """Where the last ``Py_BuildValue`` of a wrapper puts the CANN error code (an int value named
    ``ret`` or ``iRet``: the wrappers' own naming, the one way to tell a returned aclError from a
    returned int value), or None."""
    calls = list(re.finditer(r'Py_BuildValue\s*\(\s*"[^"]*"\s*,?', body))
    if not calls:
        return None
    depth, args, current = 0, [], ""
    for ch in body[calls[-1].end() :]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += ch
    args.append(current.strip())
    fmt = [c for c in re.search(r'"([^"]*)"', calls[-1].group(0)).group(1) if c.isalpha()]
    return next((i for i, a in enumerate(args) if a in ("ret", "iRet") and i < len(fmt) and fmt[i] in "iI"), None)


def _wrappers(files: dict[str, str]) -> dict[str, dict]:
    found = {}
    for path, text in files.items():
        for m in _WRAPPER.finditer(text):
            body = _body(text, m.end())
            if body.rstrip().endswith(";") and len(body) < 3:
                continue
            parse = _PARSE.search(body)
            returns = _returns(body)
            calls: list[str] = []
            for c in _CALL.finditer(body):
                if c.group(1) not in calls and not c.group(1).startswith("acl_"):
                    calls.append(c.group(1))
            if not calls and "ACL_APP_LOG" in body and "%s" in body:
                calls = ["aclAppLog"]  # acl.app_log: the log macro is its call
            found[m.group(1)] = {
                "parse": parse.group(2) if parse else None,
                "keywords": bool(parse and parse.group(1)),
                "returns": returns,
                "code": _code_at(body),
                "c": calls,
                "at": f"{path}:{text.count(chr(10), 0, m.start()) + 1}",
            }
    return found


ORDER = ("", "rt", "mdl", "media", "op", "blas", "util", "prof", "himpi", "fv")  # as py_init_acl.cpp adds them


def extract(root: Path) -> list[dict]:
    """Every function of the binding at ``root`` (a checkout's ``python/pyACL``): the top level,
    then the submodules in the order the binding adds them, each in its table's order."""
    files = {str(p.relative_to(root.parent.parent)): p.read_text() for p in sorted(root.rglob("*.cpp"))}
    wrappers = _wrappers(files)
    out = []
    for module, name, wrapper, flags, guard, table_at in _tables(files):
        w = wrappers.get(wrapper, {"parse": None, "keywords": False, "returns": [], "code": None, "c": [], "at": None})
        required, total = units(w["parse"]) if flags != "METH_NOARGS" else (0, 0)
        out.append(
            {
                "module": module,
                "name": name,
                "c": w["c"],
                "parse": w["parse"],
                "args": [required, total],
                "returns": w["returns"],
                "code": w["code"],
                "guard": guard,
                "wrapper": w["at"],
                "table": table_at,
            }
        )
    return sorted(out, key=lambda f: ORDER.index(f["module"]) if f["module"] in ORDER else len(ORDER))


def dump(functions: list[dict], commit: str, notes: dict[str, str]) -> str:
    """The table's text: a header, then one function a line (a diff shows what changed)."""
    head = {
        "source": "hicann/runtime python/pyACL (method tables and wrappers)",
        "commit": commit,
        "fields": {
            "module": "'' for the top-level acl, else the submodule (acl.rt, acl.mdl, ...)",
            "c": "the CANN calls the wrapper makes, in order",
            "parse": "the PyArg_ParseTuple format (null: no arguments parsed)",
            "args": "[required, total] positional arguments the format takes",
            "returns": "the Py_BuildValue formats the wrapper returns, first seen first; 'None' is Py_None, 'O' another object",
            "code": "where the last of them puts the CANN error code (null: it returns none)",
            "guard": "the preprocessor condition around the method-table entry",
            "wrapper": "file:line of the wrapper",
            "table": "file:line of the method-table entry",
            "note": "what the wrapper does beyond its formats, in our words",
        },
    }
    lines = [
        "{",
        *(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()),
        ' "functions": [',
    ]
    rows = []
    for f in functions:
        key = f"{f['module']}.{f['name']}"
        row = dict(f)
        if notes.get(key):
            row["note"] = notes[key]
        rows.append("  " + json.dumps(row, ensure_ascii=False))
    lines.append(",\n".join(rows))
    lines += [" ]", "}"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="the binding's folder: python/pyACL of a hicann/runtime checkout")
    parser.add_argument("--commit", required=True, help="the commit the checkout is at")
    parser.add_argument("--out", type=Path, default=TABLE)
    args = parser.parse_args(argv)
    notes = {}
    if args.out.exists():
        old = json.loads(args.out.read_text())
        notes = {f"{f['module']}.{f['name']}": f.get("note", "") for f in old["functions"]}
    functions = extract(args.root.resolve())
    if not functions:
        print(f"no method table under {args.root}", file=sys.stderr)
        return 1
    args.out.write_text(dump(functions, args.commit, notes))
    print(f"{len(functions)} functions -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

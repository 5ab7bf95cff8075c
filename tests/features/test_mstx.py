"""mstx (core/features/mstx.py, acl/mstx.py) and msprof's command line (sandbox.msprof): when marks and
ranges are kept, their domains and ids, the domain filters, and where they show (the trace, the
collection's JSON, the exported trace)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pytest

import sandbox
from sandbox import acl
from sandbox.core import trace as T
from sandbox.export.validate import validate_chrome_trace

ROOT = Path(__file__).resolve().parents[2]
PORT = ROOT / "examples" / "5_performance" / "profiling" / "3_mstx_with_domain.py"
MSPROFTX = acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX


def notes():
    """The trace's mstx notes: (text, domain, began is None, tid)."""
    return [(n.text, n.domain, n.began is None, n.tid) for n in sandbox.trace() if type(n) is T.Note and n.domain]


def collecting(tmp_path, data_types=MSPROFTX):
    """An acl.prof collection of device 0 runs; its config."""
    assert acl.prof.init(str(tmp_path)) == 0
    cfg = acl.prof.create_config([0], acl.ACL_AICORE_NONE, 0, data_types)
    assert acl.prof.start(cfg) == 0
    return cfg


def timeline(root: Path) -> list[dict]:
    """The msprof_*.json events of the one collection under ``root``."""
    (path,) = root.glob("PROF_*/mindstudio_profiler_output/msprof_*.json")
    data = json.loads(path.read_text())
    assert validate_chrome_trace(data) == []
    return data["traceEvents"]


def mstx_events(events: list[dict]) -> list[tuple]:
    return [(e["ph"], e["name"], e["args"]["domain"]) for e in events if e.get("cat") == "msproftx"]


def a_few_marks(stream, domain):
    """A default range around a mark and a domain's mark and range; the two ranges' ids."""
    outer = acl.mstx.range_start_a("outer", stream)
    acl.mstx.mark_a("point", stream)
    acl.mstx.domain_mark_a(domain, "inner point", 0)
    inner = acl.mstx.domain_range_start_a(domain, "inner", stream)
    sandbox.host_work(1_000, "work")
    acl.mstx.domain_range_end(domain, inner)
    acl.mstx.range_end(outer)
    return outer, inner


# -- on and off ------------------------------------------------------------------------------------
def test_outside_a_collection_with_msproftx_the_calls_keep_nothing_and_a_range_start_is_0(device0, tmp_path):
    domain = acl.mstx.domain_create_a("d")
    assert a_few_marks(device0, domain) == (0, 0)  # no collection
    cfg = collecting(tmp_path, acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME)
    assert a_few_marks(device0, domain) == (0, 0)  # a collection without ACL_PROF_MSPROFTX
    assert acl.prof.stop(cfg) == 0
    assert notes() == []


def test_a_collection_with_msproftx_keeps_them_until_its_stop(device0, tmp_path):
    domain = acl.mstx.domain_create_a("d")
    cfg = collecting(tmp_path)
    assert a_few_marks(device0, domain) == (1, 4)
    assert acl.prof.stop(cfg) == 0
    assert a_few_marks(device0, domain) == (0, 0)  # aclprofStop stops msprof's mstx data handler
    assert acl.prof.create_stamp() != 0  # where aclprof's msproftx stays on until aclprofFinalize
    assert [(text, domain) for text, domain, *_ in notes()] == [
        ("point", "default"),
        ("inner point", "d"),
        ("inner", "d"),
        ("outer", "default"),
    ]


def test_marks_and_ranges_are_msproftx_notes_with_their_domain_a_range_with_its_start(device0, tmp_path):
    domain = acl.mstx.domain_create_a("d")
    collecting(tmp_path)
    t0 = sandbox.now()
    a_few_marks(device0, domain)
    kept = [n for n in sandbox.trace() if type(n) is T.Note and n.domain]
    assert {n.kind for n in kept} == {"msproftx"}
    point, _, inner, outer = kept
    assert point.began is None and t0 < point.t
    assert outer.began is not None and outer.began < point.t < inner.began < inner.t <= outer.t
    assert inner.t - inner.began >= 1_000  # the host work inside it


def test_a_call_that_keeps_nothing_leaves_its_call_record_only(device0):
    log = sandbox.trace()
    before = len(list(log))
    acl.mstx.mark_a("=not kept", device0)
    added = list(log)[before:]
    assert [type(r).__name__ for r in added] == ["ApiCall"] and added[0].name == "mstxMarkA" and added[0].ret == 0


# -- domains ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["default", "", "=x", "+x", "-x", "@x", "\0x", "n" * 1024, "é" * 512])
def test_domain_create_refuses_default_an_empty_name_a_leading_sign_or_1024_bytes_with_null(machine, name):
    assert acl.mstx.domain_create_a(name) == 0


def test_a_domain_is_made_whether_or_not_a_collection_runs_and_a_name_twice_gives_its_handle(machine):
    first = acl.mstx.domain_create_a("n" * 1023)
    assert first != 0 and acl.mstx.domain_create_a("n" * 1023) == first
    assert acl.mstx.domain_create_a("Default") not in (0, first)  # only "default" itself is the default's


def test_a_destroyed_domain_s_calls_do_nothing_and_its_name_makes_a_new_handle(device0, tmp_path):
    domain = acl.mstx.domain_create_a("d")
    collecting(tmp_path)
    started = acl.mstx.domain_range_start_a(domain, "open", 0)
    assert acl.mstx.domain_destroy(domain) is None
    acl.mstx.domain_mark_a(domain, "gone", 0)
    acl.mstx.domain_range_end(domain, started)
    assert acl.mstx.domain_range_start_a(domain, "gone", 0) == 0
    assert acl.mstx.domain_destroy(domain) is None and acl.mstx.domain_destroy(0) is None  # twice, NULL: nothing
    again = acl.mstx.domain_create_a("d")
    assert again not in (0, domain)
    acl.mstx.domain_range_end(again, started)  # the range of the old handle: the same name, so the same domain
    assert notes() == [("open", "d", False, 1)]


# -- messages, ids, ranges -------------------------------------------------------------------------
@pytest.mark.parametrize("message", ["", "=sum(A1)", "+1", "-1", "@x", "\0hidden"])
def test_a_message_empty_or_starting_with_a_sign_is_dropped_and_takes_no_id(device0, tmp_path, message):
    collecting(tmp_path)
    acl.mstx.mark_a(message, 0)
    assert acl.mstx.range_start_a(message, 0) == 0
    assert acl.mstx.range_start_a("kept", 0) == 1
    assert [text for text, *_ in notes()] == []


def test_ids_count_the_process_s_marks_and_range_starts_from_1_and_go_on_across_collections(device0, tmp_path):
    cfg = collecting(tmp_path)
    acl.mstx.mark_a("one", 0)
    assert acl.mstx.range_start_a("two", 0) == 2
    acl.mstx.domain_mark_a(acl.mstx.domain_create_a("d"), "three", 0)
    assert acl.prof.stop(cfg) == 0
    assert acl.prof.start(cfg) == 0
    assert acl.mstx.range_start_a("four", 0) == 4


def test_a_message_is_cut_at_its_first_nul_as_a_c_string(device0, tmp_path):
    collecting(tmp_path)
    acl.mstx.mark_a("seen\0unseen", 0)
    assert notes() == [("seen", "default", True, 1)]


def test_a_range_ends_only_in_the_domain_it_started_in(device0, tmp_path):
    domain = acl.mstx.domain_create_a("d")
    collecting(tmp_path)
    default_range = acl.mstx.range_start_a("default's", 0)
    domain_range = acl.mstx.domain_range_start_a(domain, "d's", 0)
    acl.mstx.range_end(domain_range)  # the other domain's: nothing ends
    acl.mstx.domain_range_end(domain, default_range)
    assert notes() == []
    acl.mstx.domain_range_end(domain, domain_range)
    acl.mstx.range_end(default_range)
    assert notes() == [("d's", "d", False, 1), ("default's", "default", False, 1)]


def test_a_range_id_never_started_or_ended_before_ends_nothing(device0, tmp_path):
    collecting(tmp_path)
    started = acl.mstx.range_start_a("once", 0)
    for range_id in (0, started + 1, 2**64 - 1, -1):
        acl.mstx.range_end(range_id)
    acl.mstx.range_end(started)
    acl.mstx.range_end(started)
    assert notes() == [("once", "default", False, 1)]


def test_a_range_started_before_a_collection_is_not_ended_in_it_and_one_ended_after_its_stop_is_lost(device0, tmp_path):
    early = acl.mstx.range_start_a("early", 0)
    cfg = collecting(tmp_path)
    acl.mstx.range_end(early)  # 0: nothing was started
    late = acl.mstx.range_start_a("late", 0)
    assert acl.prof.stop(cfg) == 0
    acl.mstx.range_end(late)
    assert notes() == []


def test_a_range_is_on_the_row_of_the_thread_that_started_it(device0, tmp_path):
    collecting(tmp_path)
    started = {}

    def worker():
        assert acl.rt.set_device(0) == 0
        started["id"] = acl.mstx.range_start_a("from the worker", 0)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    acl.mstx.range_end(started["id"])
    (note,) = [n for n in sandbox.trace() if type(n) is T.Note and n.domain]
    tids = {r.name: r.tid for r in sandbox.trace() if type(r) is T.ApiCall and r.name.startswith("mstx")}
    assert note.tid == tids["mstxRangeStartA"] != tids["mstxRangeEnd"] and note.text == "from the worker"


def test_a_stream_the_runtime_refuses_drops_the_mark_or_range_but_takes_an_id(device0, tmp_path):
    collecting(tmp_path)
    other, _ = acl.rt.create_stream()
    acl.mstx.mark_a("on a stream", device0)
    assert acl.rt.destroy_stream(other) == 0
    acl.mstx.mark_a("dead stream", other)  # id 2, dropped
    assert acl.mstx.range_start_a("dead stream", other) == 0  # id 3, dropped
    kept = acl.mstx.range_start_a("on a stream", device0)
    assert kept == 4
    acl.mstx.range_end(kept)
    assert [text for text, *_ in notes()] == ["on a stream", "on a stream"]


# -- where they show -------------------------------------------------------------------------------
def test_the_collection_json_shows_them_on_the_thread_s_row_with_their_domain(device0, tmp_path):
    domain = acl.mstx.domain_create_a("DoAclAdd_Inner")
    cfg = collecting(tmp_path)
    a_few_marks(device0, domain)
    assert acl.prof.stop(cfg) == 0
    events = timeline(tmp_path)
    assert mstx_events(events) == [
        ("b", "outer", "default"),
        ("i", "point", "default"),
        ("i", "inner point", "DoAclAdd_Inner"),
        ("b", "inner", "DoAclAdd_Inner"),
        ("e", "inner", "DoAclAdd_Inner"),
        ("e", "outer", "default"),
    ]
    tx = [e for e in events if e.get("cat") == "msproftx"]
    assert {e["cat"] for e in tx} == {"msproftx"} and len({(e["pid"], e["tid"]) for e in tx}) == 1


def test_the_exported_trace_shows_them_and_aclprof_s_marks_name_no_domain(device0, tmp_path):
    collecting(tmp_path)
    acl.mstx.mark_a("mstx", 0)
    stamp = acl.prof.create_stamp()
    assert acl.prof.set_stamp_trace_message(stamp, "aclprof", 7) == 0
    assert acl.prof.mark(stamp) == 0
    out = tmp_path / "trace.json"
    sandbox.export_trace(str(out))
    marks = {e["name"]: e for e in json.loads(out.read_text())["traceEvents"] if e.get("cat") == "msproftx"}
    assert marks["mstx"]["args"] == {"domain": "default"} and "args" not in marks["aclprof"]


# -- msprof's command line ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, kept",
    [
        ({}, ["outer", "point", "inner point", "inner"]),
        ({"mstx_domain_include": "default"}, ["outer", "point"]),
        ({"mstx_domain_exclude": "default"}, ["inner point", "inner"]),
        ({"mstx_domain_include": "d,default"}, ["outer", "point", "inner point", "inner"]),
        ({"mstx_domain_exclude": "d,other"}, ["outer", "point"]),
    ],
)
def test_the_command_line_s_filters_keep_or_drop_domains_by_name(device0, tmp_path, options, kept):
    domain = acl.mstx.domain_create_a("d")
    with sandbox.msprof(str(tmp_path), msproftx="on", **options):
        a_few_marks(device0, domain)
    assert sorted(text for text, *_ in notes()) == sorted(kept)
    assert {name for _, name, _ in mstx_events(timeline(tmp_path))} == set(kept)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"mstx_domain_include": "default"}, "must be used with --msproftx=on"),
        ({"msproftx": "on", "mstx_domain_include": "a", "mstx_domain_exclude": "b"}, "cannot be used at the same time"),
        ({"msproftx": "yes"}, "expected 'on' or 'off'"),
    ],
)
def test_the_command_line_refuses_a_filter_without_msproftx_or_both_filters_as_msprof_does(
    machine, tmp_path, options, message
):
    with pytest.raises(ValueError, match=message):
        with sandbox.msprof(str(tmp_path), **options):
            pass
    assert not list(tmp_path.iterdir())


def test_the_command_line_writes_its_collection_of_the_block_at_its_end(device0, tmp_path):
    out = tmp_path / "out"
    with sandbox.msprof(str(out), msproftx="on"):
        acl.mstx.mark_a("inside", 0)
        assert list(out.iterdir()) == []  # written at the end of the block
    acl.mstx.mark_a("after", 0)
    (folder,) = out.iterdir()
    assert re.fullmatch(r"PROF_000001_\d{17}_\d{8}[A-R]{8}", folder.name)
    files = sorted(p.name.rsplit("_", 1)[0] for p in (folder / "mindstudio_profiler_output").iterdir())
    assert files == ["msprof", "op_statistic", "op_summary"]
    assert [text for text, *_ in notes()] == ["inside"]
    kinds = [type(r).__name__ for r in sandbox.trace() if type(r) in (T.ProfilingStarted, T.ProfilingStopped)]
    assert kinds == ["ProfilingStarted", "ProfilingStopped"]


def test_without_msproftx_the_command_line_keeps_no_mstx_marks(device0, tmp_path):
    with sandbox.msprof(str(tmp_path)):
        acl.mstx.mark_a("not kept", 0)
        assert acl.prof.create_stamp() == 0
    assert notes() == [] and mstx_events(timeline(tmp_path)) == []


def test_msproftx_on_the_command_line_turns_aclprof_s_msproftx_on_for_the_block(device0, tmp_path):
    with sandbox.msprof(str(tmp_path), msproftx="on"):
        assert acl.prof.create_stamp() != 0
    assert acl.prof.create_stamp() == 0


def test_command_lines_do_not_nest(device0, tmp_path):
    with sandbox.msprof(str(tmp_path), msproftx="on"):
        with pytest.raises(ValueError, match="do not nest"):
            with sandbox.msprof(str(tmp_path / "inner"), msproftx="on"):
                pass
        acl.mstx.mark_a("still collected", 0)
    assert [text for text, *_ in notes()] == ["still collected"]


# -- determinism ----------------------------------------------------------------------------------
PROGRAM = """
import sys
import sandbox
from sandbox import acl

@sandbox.kernel(ns=20_000, writes=("out",))
def scale(x: "float32*", out: "float32*", n: int):
    out[:n] = 2 * x[:n]

acl.init()
acl.rt.set_device(0)
stream, _ = acl.rt.create_stream()
x, _ = acl.rt.malloc(4096, 0)
domain = acl.mstx.domain_create_a("inner")
with sandbox.msprof(sys.argv[1], msproftx="on", mstx_domain_exclude="other"):
    outer = acl.mstx.range_start_a("outer", stream)
    for n in range(3):
        acl.mstx.domain_mark_a(domain, f"launch {n}", stream)
        scale[2, stream](x, x, 16)
    inner = acl.mstx.domain_range_start_a(domain, "sync", stream)
    acl.rt.synchronize_stream(stream)
    acl.mstx.domain_range_end(domain, inner)
    acl.mstx.range_end(outer)
print([n for n in sandbox.trace() if type(n).__name__ == "Note"])
"""


def test_the_same_program_keeps_the_same_notes_and_writes_byte_identical_files_in_two_processes(tmp_path):
    runs = []
    for n, seed in enumerate(("0", "123")):
        out = tmp_path / f"run{n}"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(PROGRAM), str(out)], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("domain='inner'") == 4 and done.stdout.count("domain='default'") == 1
        runs.append((done.stdout, {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}))
    assert len(runs[0][1]) == 3 and runs[0] == runs[1]


# -- the sample ----------------------------------------------------------------------------------
def load_port():
    spec = importlib.util.spec_from_file_location("mstx_with_domain_port", PORT)
    port = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(port)
    return port


@pytest.mark.parametrize(
    "options, kept",
    [
        ({}, {"default", "DoAclAdd_Inner"}),
        ({"mstx_domain_include": "default"}, {"default"}),
        ({"mstx_domain_exclude": "default"}, {"DoAclAdd_Inner"}),
    ],
)
def test_the_sample_under_the_readme_s_three_msprof_commands_keeps_the_readme_s_domains(tmp_path, options, kept):
    sandbox.configure()  # the program opens the board itself
    port = load_port()
    with sandbox.msprof(str(tmp_path), msproftx="on", **options), redirect_stdout(StringIO()) as out:
        assert port.main() == 0
    assert out.getvalue() == (PORT.with_suffix(".expected.txt")).read_text()
    every = [
        ("b", "TestMstxWithDomain", "default"),
        ("i", "DoAclAdd Start", "default"),
        ("i", "Create alpha aclScalar", "DoAclAdd_Inner"),
        ("b", "After aclnnAdd", "DoAclAdd_Inner"),
        ("e", "After aclnnAdd", "DoAclAdd_Inner"),
        ("e", "TestMstxWithDomain", "default"),
    ]
    assert mstx_events(timeline(tmp_path)) == [e for e in every if e[2] in kept]

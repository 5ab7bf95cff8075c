"""The sandbox's own reports speak the chosen language: under ``set_language("zh")`` the text of
every HazardWarning and LeakWarning, the messages of ``sandbox.hazards()``, the leak report and
the hazard lines of the summaries are Chinese but for what the runtime names (calls, codes, task,
kernel, thread and process names, addresses, figures); the core still makes and records them in
English, so English output, the warnings' category and the text warnings filters match do not
change."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import sandbox
from sandbox import acl, i18n
from sandbox.core import hazards as core_hazards
from sandbox.core import trace as T
from sandbox.viz import summary

ROOT = Path(__file__).resolve().parents[2]
H2D, D2H, D2D = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST, acl.ACL_MEMCPY_DEVICE_TO_DEVICE
POOL = {"allocType": 0, "handleType": 0, "location": {"id": 0, "type": 1}, "maxSize": 0}
CJK = re.compile(r"[\u4e00-\u9fff]")
TIGHT = re.compile(r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]")


@sandbox.kernel(ns=50_000)
def scale(x: sandbox.ptr(np.float32, "n"), n):
    x[:n] *= 2


@pytest.fixture
def zh():
    sandbox.set_language("zh")
    yield
    sandbox.set_language("en")


def _start():
    sandbox.configure("ascend910b")
    acl.init()
    acl.rt.set_device(0)
    return acl.rt.create_stream()[0]


# -- one program per shape of message the core makes (hazards.py, leaks.py) ----------------------
def host_read():
    s = _start()
    h, _ = acl.rt.malloc_host(4096)
    d, _ = acl.rt.malloc(4096, 0)
    acl.rt.memcpy_async(h, 4096, d, 4096, D2H, s)
    acl.util.ptr_to_numpy(h, (1024,), np.float32)


def host_read_of_a_blocking_copy_still_running_on_another_thread():
    _start()
    n = 64 << 20
    h, _ = acl.rt.malloc_host(n)
    d, _ = acl.rt.malloc(n, 0)
    t = threading.Thread(target=lambda: (acl.rt.set_device(0), acl.rt.memcpy(h, n, d, n, D2H)), name="copier")
    t.start()
    sandbox.host_work(100_000)
    acl.util.ptr_to_bytes(h, 8)
    t.join()


def host_write_over_bytes_a_copy_reads():
    s = _start()
    h, _ = acl.rt.malloc_host(4096)
    d, _ = acl.rt.malloc(4096, 0)
    acl.rt.memcpy_async(d, 4096, h, 4096, H2D, s)
    acl.rt.memset(h, 4096, 0, 4096)


def host_write_over_bytes_a_copy_writes():
    s = _start()
    h, _ = acl.rt.malloc_host(4096)
    h2, _ = acl.rt.malloc_host(4096)
    d, _ = acl.rt.malloc(4096, 0)
    acl.rt.memcpy_async(h, 4096, d, 4096, D2H, s)
    acl.rt.memcpy(h, 4096, h2, 4096, acl.ACL_MEMCPY_HOST_TO_HOST)


def stream_race_write_write():
    s = _start()
    o, _ = acl.rt.create_stream()
    d, _ = acl.rt.malloc(4096, 0)
    scale[1, s](d, 1024)
    scale[1, o](d, 1024)


def stream_race_write_after_read():
    s = _start()
    o, _ = acl.rt.create_stream()
    d, _ = acl.rt.malloc(4096, 0)
    h, _ = acl.rt.malloc_host(4096)
    acl.rt.memcpy_async(h, 4096, d, 4096, D2H, s)
    scale[1, o](d, 1024)


def stream_race_of_a_blocking_copy_read():
    s = _start()
    d, _ = acl.rt.malloc(4096, 0)
    h, _ = acl.rt.malloc_host(4096)
    scale[1, s](d, 1024)
    acl.rt.memcpy(h, 4096, d, 4096, D2H)


def stream_race_with_a_replayed_graph_side_stream():
    s = _start()
    s2, _ = acl.rt.create_stream()
    o, _ = acl.rt.create_stream()
    d, _ = acl.rt.malloc(4096, 0)
    e1, _ = acl.rt.create_event()
    e2, _ = acl.rt.create_event()
    acl.mdl.ri_capture_begin(s, acl.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
    acl.rt.record_event(e1, s)
    acl.rt.stream_wait_event(s2, e1)
    scale[1, s2](d, 1024)
    acl.rt.record_event(e2, s2)
    acl.rt.stream_wait_event(s, e2)
    ri, _ = acl.mdl.ri_capture_end(s)
    acl.mdl.ri_execute_async(ri, s)
    scale[1, o](d, 1024)


def free_in_use_by_one_task():
    s = _start()
    d, _ = acl.rt.malloc(4096, 0)
    scale[1, s](d, 1024)
    acl.rt.free(d)


def free_in_use_by_two_tasks_of_pinned_memory():
    s = _start()
    h, _ = acl.rt.malloc_host(4096)
    d, _ = acl.rt.malloc(4096, 0)
    acl.rt.memcpy_async(d, 2048, h, 2048, H2D, s)
    acl.rt.memcpy_async(d + 2048, 2048, h + 2048, 2048, H2D, s)
    acl.rt.free_host(h)


def pool_free_async_on_an_unordered_stream():
    s = _start()
    o, _ = acl.rt.create_stream()
    pool, _ = acl.rt.mem_pool_create(POOL)
    p, _ = acl.rt.mem_pool_malloc_async(4096, pool, s)
    scale[1, s](p, 1024)
    acl.rt.mem_pool_free_async(p, o)


def use_after_reset_by_a_blocking_copy():
    _start()
    d, _ = acl.rt.malloc(4096, 0)
    h, _ = acl.rt.malloc_host(4096)
    acl.rt.reset_device(0)
    acl.rt.set_device(0)
    acl.rt.memcpy(h, 4096, d, 4096, D2H)


def peer_copy_without_peer_access():
    _start()
    src, _ = acl.rt.malloc(4096, 0)
    acl.rt.set_device(1)
    dst, _ = acl.rt.malloc(4096, 0)
    acl.rt.memcpy(dst, 4096, src, 4096, D2D)


def leaks_of_every_kind_at_finalize():
    s = _start()
    acl.rt.create_event()
    acl.rt.create_event_with_flag(acl.ACL_EVENT_SYNC)
    acl.rt.malloc(100, 0)
    acl.rt.malloc(3 << 20, 0)
    acl.rt.malloc_host(4096)
    pool, _ = acl.rt.mem_pool_create(POOL)
    acl.rt.mem_pool_malloc_async(64, pool, s)
    acl.rt.create_notify(acl.ACL_NOTIFY_DEFAULT)
    acl.rt.create_context(1)
    acl.finalize()


def one_leak_at_a_process_end():
    _start()

    def worker():
        acl.init()
        acl.rt.set_device(0)
        acl.rt.malloc(4096, 0)

    sandbox.spawn_process(worker, name="leaky").join()


def ipc_memory_left_open_at_process_ends():
    _start()

    def exporter():
        acl.init()
        acl.rt.set_device(0)
        ptr, _ = acl.rt.malloc(4096, 0)
        key, _ = acl.rt.ipc_mem_get_export_key(ptr, 4096, 65, 1)
        sandbox.write_shared("key", key)

    def importer():
        acl.init()
        acl.rt.set_device(0)
        acl.rt.ipc_mem_import_by_key(sandbox.read_shared("key"), 0)

    sandbox.spawn_process(exporter, name="exporter").join()
    sandbox.spawn_process(importer, name="importer").join()


def nothing_left():
    _start()


PROGRAMS = [
    host_read,
    host_read_of_a_blocking_copy_still_running_on_another_thread,
    host_write_over_bytes_a_copy_reads,
    host_write_over_bytes_a_copy_writes,
    stream_race_write_write,
    stream_race_write_after_read,
    stream_race_of_a_blocking_copy_read,
    stream_race_with_a_replayed_graph_side_stream,
    free_in_use_by_one_task,
    free_in_use_by_two_tasks_of_pinned_memory,
    pool_free_async_on_an_unordered_stream,
    use_after_reset_by_a_blocking_copy,
    peer_copy_without_peer_access,
    leaks_of_every_kind_at_finalize,
    one_leak_at_a_process_end,
    ipc_memory_left_open_at_process_ends,
    nothing_left,
]


def run(program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        program()
    return [w for w in caught if issubclass(w.category, (sandbox.HazardWarning, sandbox.LeakWarning))]


def shown_texts(caught) -> list[str]:
    """Every text of a report a learner sees: the warnings, sandbox.hazards(), the leak report
    and the hazard lines of the trace summary."""
    texts = [str(w.message) for w in caught]
    texts += [h.message for h in sandbox.hazards()]
    texts.append(str(sandbox.leak_report()))
    texts += [line for line in summary.trace_summary(sandbox.trace()).splitlines() if "hazard" in line]
    return texts


def runtime_names(log) -> set[str]:
    """What the runtime or the program names in a report: calls, task kinds and names, thread
    and process names, plus units and the glossary's bracketed English."""
    names = {
        "Host",
        # the runtime's terms the official Chinese docs keep in English (notebooks/GLOSSARY.md)
        "Stream",
        "Event",
        "Context",
        "Device",
        "KiB",
        "MiB",
        "GiB",
        "ns",
        "us",
        "ms",
        "s",
        "RI",
        "Notify",  # (the official Chinese docs keep the word: docs/zh/api_ref/08_notify_management.md)
        "peer",
        "access",
        "memset",
        "hazard",
        "main",
        "leaky",
        "copier",
    }
    for r in log.records:
        if isinstance(r, T.ApiCall):
            names.add(r.name)
    for r in log.records:
        for attr in ("kind", "name"):
            value = getattr(r, attr, None)
            if isinstance(value, str):
                names.update(value.split())
    return names


def english_words(text: str, allowed: set[str]) -> list[str]:
    """The English words of a Chinese text that are not code or a runtime name."""
    text = re.sub(r"0x[0-9a-f]+|'[^']*'|\b(?:acl|ACL_)\w*|\w+(?:\.\w+)+|\b\w*_\w*\b", " ", text)
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text) if w not in allowed and not w.isupper()]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_every_hazard_and_leak_text_a_learner_sees_is_chinese_under_zh(zh, program):
    caught = run(program)
    assert caught or program is nothing_left, "the program no longer makes the report it stands for"
    allowed = runtime_names(sandbox.trace())
    found = {}
    for text in shown_texts(caught):
        for line in text.splitlines():
            assert CJK.search(line), f"no Chinese at all: {line!r}"
            assert not TIGHT.search(line), f"no space between Chinese and Latin text: {line!r}"
            words = english_words(line, allowed)
            if words:
                found[line] = words
    assert not found, "add these shapes to REPORTS in sandbox/teach/texts_zh.py:\n" + "\n".join(
        f"{line}\n    {words}" for line, words in list(found.items())[:5]
    )


def test_the_shapes_no_program_reaches_today_have_a_chinese_text_too():
    """The host-side ``use_after_reset`` (core/hazards.py ``stale`` called from a host access of
    device memory) is made of pieces the other reports use; its sentence is known whole."""
    who = "acl.util.ptr_to_numpy on host thread 'main'"
    english = (
        f"{who} uses the 4096-byte device buffer at 0x100000000000, allocated before device 0 was fully reset "
        "(aclrtResetDevice): the reset released the device's default context and streams, and memory allocated "
        "before it must not be used after it (undefined on hardware). Fix: free device memory (aclrtFree) before "
        "resetting the device, and allocate again after aclrtSetDevice."
    )
    chinese = i18n.report_text(english, "zh")
    assert chinese.startswith("Host 线程 'main' 上的 acl.util.ptr_to_numpy 使用了地址 0x100000000000 处")
    assert english_words(chinese, {"Host", "Device", "Context", "Stream"}) == []


@pytest.mark.parametrize("program", PROGRAMS[:-1], ids=lambda p: p.__name__)
def test_in_english_the_reports_are_what_the_core_made(program):
    caught = run(program)
    log_texts = [r.message for r in sandbox.trace().records if isinstance(r, (T.Hazard, T.LeakReport))]
    assert [str(w.message) for w in caught] == log_texts
    from sandbox.core.hazards import hazards as core_records

    assert sandbox.hazards() == core_records(sandbox.trace())
    assert all(a is b for a, b in zip(sandbox.hazards(), core_records(sandbox.trace())))


def test_under_zh_the_trace_keeps_the_english_text_and_filters_match_it(zh):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="aclrtFree frees", category=sandbox.HazardWarning)
        with pytest.raises(sandbox.HazardWarning) as raised:
            free_in_use_by_one_task()
    assert type(raised.value) is sandbox.HazardWarning
    assert str(raised.value).startswith("aclrtFree 释放了地址")
    (record,) = sandbox.trace().of(T.Hazard)
    assert record.message.startswith("aclrtFree frees the 4096-byte device buffer")
    assert raised.value.args == (record.message,)
    sandbox.set_language("en")
    assert str(raised.value) == record.message  # the same warning, shown again in English


def test_a_warning_printed_under_a_cell_is_chinese_under_zh():
    """Python's own display of a warning (what a notebook shows under the cell) under zh."""
    script = (
        "import numpy as np, sandbox\n"
        "from sandbox import acl\n"
        'sandbox.set_language("zh")\n'
        "acl.init(); acl.rt.set_device(0)\n"
        "s, _ = acl.rt.create_stream()\n"
        "h, _ = acl.rt.malloc_host(4096); d, _ = acl.rt.malloc(4096, 0)\n"
        "acl.rt.memcpy_async(h, 4096, d, 4096, acl.ACL_MEMCPY_DEVICE_TO_HOST, s)\n"
        "acl.util.ptr_to_numpy(h, (1024,), np.float32)\n"
        "acl.rt.synchronize_stream(s); acl.rt.destroy_stream(s); acl.rt.free(d)\n"
        "acl.finalize()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True
    )
    assert "HazardWarning: Host 线程 'main' 上的 acl.util.ptr_to_numpy 读取了地址" in out.stderr
    assert "LeakWarning: 进程 1（main）在 aclFinalize 时有 1 项资源没有释放：" in out.stderr
    assert "锁页内存（1 项；用 aclrtFreeHost 释放）：" in out.stderr


def test_every_report_template_fills_every_field_it_is_given():
    from sandbox.teach.texts_zh import REPORTS

    for english, chinese in REPORTS.items():
        fields = [f"<{i}>" for i in range(english.count("{}"))]
        filled = chinese.format(*fields)  # a mix of "{}" and "{0}" or a missing field raises here
        assert all(f in filled for f in fields), f"{english!r} drops a field"


def test_the_core_wording_helpers_still_make_the_pieces_the_catalogue_knows():
    """The pieces hazards.py builds its sentences from, each translated on its own."""
    stream = types.SimpleNamespace(label="", stream_id=2, device=1)
    queue = types.SimpleNamespace(label="sync copies", stream_id=0, device=0)
    task = types.SimpleNamespace(id=7, kind="kernel", name="scale")
    buf = types.SimpleNamespace(size=64, kind="device", ptr=0x1000)
    pieces = {
        core_hazards.stream_name(stream): "Device 1 的 Stream 2",
        core_hazards.stream_name(queue): "Device 0 的运行时同步拷贝队列",
        core_hazards.describe_task(task): "任务 7（kernel scale）",
        core_hazards._span(buf, 0, 8): "地址 0x1000 处 64 字节 Device 缓冲区的字节 [0, 8)",
        core_hazards._sync_fix(queue, task): "等待放入任务 7 的那个阻塞调用返回",
    }
    for english, chinese in pieces.items():
        assert i18n.report_text(english, "zh") == chinese

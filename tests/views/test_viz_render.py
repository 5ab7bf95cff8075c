"""Rendering smoke tests: every drawing saves a PNG, for small, real-sized and huge logs."""

from __future__ import annotations

import pytest
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure

from sandbox.viz.picture import Picture, Text, figure_png
from sandbox.viz.plot_gantt import gantt_figure, gantt_plot
from sandbox.viz.plot_memory import memory_figure
from sandbox.viz.plot_queues import queues_figure
from sandbox.viz.samples import synthetic_log, two_stream_log

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def log():
    return two_stream_log()


def saved(fig: Figure, path) -> bytes:
    fig.savefig(path)
    data = path.read_bytes()
    assert data.startswith(PNG)
    return data


@pytest.mark.parametrize("view", ["logical", "physical"])
@pytest.mark.parametrize("colour_by", ["kind", "stream"])
def test_gantt_saves_a_png_in_each_view_and_colouring(log, tmp_path, view, colour_by):
    saved(gantt_figure(log, view, colour_by, t=300000), tmp_path / f"gantt_{view}_{colour_by}.png")


def test_gantt_draws_one_collection_per_colour_not_one_artist_per_bar(log):
    ax = gantt_figure(log).axes[0]
    polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert sorted(c.get_label() for c in polys) == sorted(
        [
            "API call (host)",
            "host waits for device",
            "copy host → device",
            "copy device → host",
            "kernel (compute)",
            "event record / wait",
        ]
    )


def test_gantt_cursor_sits_at_t(log):
    _fig, cursor = gantt_plot(log, t=300000)
    assert list(cursor.get_xdata()) == [300000, 300000]


def test_gantt_without_t_has_no_cursor(log):
    assert gantt_plot(log)[1] is None


def test_gantt_time_axis_reads_absolute_time_in_the_clocks_unit(log):
    fig = gantt_figure(log)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "virtual time (µs)"
    lo, hi = ax.get_xlim()
    assert lo < 14000 < 921500 < hi
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
    assert "200" in labels and "800" in labels  # 200 µs is where the clock says 200.000 µs


def test_gantt_title_carries_the_seed_figures(log):
    title = gantt_figure(log).axes[0].get_title(loc="left")
    assert "total 900.000 µs · copy 800.000 µs · compute 100.000 µs · overlap 0 ns" in title


def test_unknown_colouring_is_refused(log):
    with pytest.raises(ValueError):
        gantt_figure(log, colour_by="mood")


def test_gantt_of_100k_tasks_draws(tmp_path):
    saved(gantt_figure(synthetic_log(100_000, streams=4)), tmp_path / "gantt_100k.png")


def test_memory_map_saves_a_png(log, tmp_path):
    saved(memory_figure(log, 19000), tmp_path / "memory.png")


def test_queues_save_a_png(log, tmp_path):
    saved(queues_figure(log, 100000), tmp_path / "queues.png")


def test_empty_log_still_draws(tmp_path):
    from sandbox.core.trace import TraceLog

    for i, fig in enumerate([gantt_figure(TraceLog()), memory_figure(TraceLog(), 0), queues_figure(TraceLog(), 0)]):
        saved(fig, tmp_path / f"empty{i}.png")


def test_same_figure_gives_same_png_bytes(log):
    assert figure_png(gantt_figure(log, t=5)) == figure_png(gantt_figure(log, t=5))


def test_picture_shows_png_with_its_text(log):
    p = Picture(memory_figure(log, 0), "the words")
    bundle = p._repr_mimebundle_()
    assert set(bundle) == {"image/png", "text/plain"}
    assert bundle["text/plain"] == "the words" and repr(p) == "the words"


def test_text_repr_is_the_text_itself():
    assert repr(Text("a\nb")) == "a\nb"


def test_gantt_draws_when_a_long_call_reaches_far_before_the_window(tmp_path):
    """Device open costs a second; the window starts at the first allocation, so the
    open call's bar runs a million pixels off to the left."""
    from sandbox.core import trace as tr

    log = tr.TraceLog()
    log.append(tr.ThreadStarted(0, 1, 1, "main"))
    log.append(tr.ApiCall(0, 1_000_000_000, 1, 1, "aclrtSetDevice", 0))
    log.append(tr.MemAllocated(1_000_010_000, 0, 0, 4096, 4096, "p", "normal", 1, 1))
    log.append(tr.ApiCall(1_000_000_000, 1_000_010_000, 1, 1, "aclrtMalloc", 0))
    saved(gantt_figure(log), tmp_path / "far.png")


def test_gantt_window_limits_the_axis_to_that_stretch_of_time(log):
    ax = gantt_figure(log, window=(200_000, 400_000)).axes[0]
    lo, hi = ax.get_xlim()
    assert 190_000 <= lo < 200_000 and 400_000 < hi <= 410_000
    with pytest.raises(ValueError):
        gantt_figure(log, window=(400_000, 200_000))


def test_min_bar_px_widens_the_narrowest_bars(log):
    def narrowest(fig):
        ax = fig.axes[0]
        fig.canvas.draw()
        per_px = (ax.get_xlim()[1] - ax.get_xlim()[0]) / ax.get_window_extent().width
        widths = [
            p[:, 0].max() - p[:, 0].min()
            for c in ax.collections
            if isinstance(c, PolyCollection)
            for p in (path.vertices for path in c.get_paths())
        ]
        return min(widths) / per_px

    assert narrowest(gantt_figure(log, min_bar_px=12)) >= 11.5 > narrowest(gantt_figure(log))


def test_min_block_px_widens_a_small_block_enough_for_its_label():
    import sandbox
    from sandbox import acl
    from sandbox.viz.memory import memory_map

    sandbox.configure(device_count=1)
    acl.init()
    acl.rt.set_device(0)
    big, _ = acl.rt.malloc(8 << 20, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    small, _ = acl.rt.malloc(4065, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    log = sandbox.trace()
    texts = [t.get_text() for ax in memory_figure(log, sandbox.now()).axes for t in ax.texts]
    assert not any("065" in t for t in texts)  # too thin for its label
    texts = [t.get_text() for ax in memory_figure(log, sandbox.now(), min_block_px=80).axes for t in ax.texts]
    assert any("065" in t for t in texts) and any("8 MiB" in t for t in texts)  # both labelled
    mm = memory_map(log, sandbox.now())
    assert {b.ptr for b in mm.devices[0].blocks} >= {big, small}


def test_blocks_at_one_address_get_one_label_saying_how_many():
    import sandbox
    from sandbox import acl

    sandbox.configure(device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    props = {
        "allocType": acl.ACL_MEM_ALLOCATION_TYPE_PINNED,
        "handleType": acl.ACL_MEM_HANDLE_TYPE_NONE,
        "location": {"id": 0, "type": acl.ACL_MEM_LOCATION_TYPE_DEVICE},
        "maxSize": 0,
    }
    pool = acl.rt.mem_pool_create(props)[0]
    host, _ = acl.rt.malloc_host(8 << 20)
    for _ in range(3):  # each copy takes longer than the host needs to queue the next step
        buf, _ = acl.rt.mem_pool_malloc_async(8 << 20, pool, stream)
        acl.rt.memcpy_async(buf, 8 << 20, host, 8 << 20, acl.ACL_MEMCPY_HOST_TO_DEVICE, stream)
        acl.rt.mem_pool_free_async(buf, stream)
    texts = [t.get_text() for ax in memory_figure(sandbox.trace(), sandbox.now()).axes for t in ax.texts]
    assert [t for t in texts if "at one address" in t] == ["3 blocks at one address\n8 MiB each"]


def test_stream_legend_names_each_streams_process_when_several_processes_ran():
    import sandbox
    from sandbox import acl
    from sandbox.viz.timeline import timeline

    def worker():
        acl.init()
        acl.rt.set_device(0)
        stream, _ = acl.rt.create_stream()
        buf, _ = acl.rt.malloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        acl.rt.memset_async(buf, 4096, 0, 4096, stream)
        acl.rt.synchronize_stream(stream)
        acl.rt.free(buf)
        acl.rt.reset_device(0)
        acl.finalize()

    sandbox.configure(device_count=1)
    for p in [sandbox.spawn_process(worker, name=f"P{i}") for i in (1, 2)]:
        p.join()
    labels = [label for _h, label in timeline(sandbox.trace()).streams]
    assert [label.split(" · ")[-1] for label in labels] == ["P1", "P2"]


def _legend_texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_gantt_hatches_the_tasks_that_failed_or_were_discarded_and_says_so_in_its_legend():
    import sandbox
    from sandbox import acl

    sandbox.configure("ascend910b", device_count=1)
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()

    @sandbox.kernel(ns=100_000, writes=())
    def step(x: "uint8*"):
        pass

    buf, _ = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    step[1, stream](buf)
    acl.rt.synchronize_stream(stream)
    clean = gantt_figure(sandbox.trace())
    assert "failed or discarded" not in _legend_texts(clean)
    assert not [c for c in clean.axes[0].collections if c.get_hatch()]
    step[1, stream](buf)
    step[1, stream](buf)  # queued behind the running one: discarded by the forced destroy
    acl.rt.destroy_stream_force(stream)
    fig = gantt_figure(sandbox.trace())
    assert "failed or discarded" in _legend_texts(fig)
    hatched = [c for c in fig.axes[0].collections if c.get_hatch()]
    assert len(hatched) == 1 and len(hatched[0].get_paths()) == 1  # the discarded kernel only
    acl.rt.free(buf)
    acl.rt.reset_device(0)
    acl.finalize()


def test_a_queue_box_breaks_a_long_waiting_reason_instead_of_cutting_it():
    import sandbox
    from sandbox import acl

    sandbox.configure("ascend310b")
    acl.init()
    acl.rt.set_device(0)
    stream, _ = acl.rt.create_stream()
    dev, _ = acl.rt.malloc(1 << 20, 0)

    @sandbox.kernel(ns=200_000)
    def slow(x: "uint8*"):
        pass

    for _ in range(3):
        slow[1, stream](dev)
    fig = sandbox.queues(sandbox.now()).figure
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert any("waits:\npredecessor" in t for t in texts), texts
    assert not any("…" in t for t in texts), texts


def test_gantt_outlines_the_marked_tasks_in_one_collection_and_names_them_in_its_legend(log):
    from sandbox.core import trace as tr

    tasks = sorted(r.task for r in log.records if isinstance(r, tr.TaskSubmitted))[:2]
    plain = gantt_figure(log)
    marked = gantt_figure(log, marked=tasks)
    outlines = [c for c in marked.axes[0].collections if isinstance(c, PolyCollection)]
    assert len(outlines) == len(plain.axes[0].collections) + 1  # one more collection, whatever the count
    assert len(outlines[-1].get_paths()) == len(tasks) and "named by a ✘ criterion" in _legend_texts(marked)
    assert "named by a ✘ criterion" not in _legend_texts(plain)
    assert "named by a ✘ criterion" not in _legend_texts(gantt_figure(log, marked=[10**9]))  # no such task

"""The views' texts in Simplified Chinese (``sandbox.set_language("zh")``), read by
``sandbox.i18n``: titles, legends, axis labels, the labels of rows, blocks and queue boxes,
and the plain-text summaries, of ``sandbox.viz`` and the dashboard (``sandbox.widgets``).

``TEXTS`` maps an English text to its Chinese.  A key with ``{}`` fields is a ``str.format``
template: the views fill it with ``i18n.text(template, *args)``, and ``i18n.translate``
also matches labels of that shape made elsewhere (a row's "NPU 0 Stream 1"), translating each
field in turn.  A Chinese template may name its fields (``{0}``, ``{2}``) to reorder them or
to leave out an English plural ending.  Terms follow ``notebooks/GLOSSARY.md``; C names,
engine names (AI Core, DMA H2D), kernel and task names, units and numbers stay as they are.
"""

from __future__ import annotations

# -- what the views say, whole ----------------------------------------------------------------
WORDS = {
    # the two views of the timeline
    "logical": "逻辑",
    "physical": "物理",
    # task kinds in the legend (sandbox.viz.style.KIND_LABELS)
    "kernel (compute)": "核函数（计算）",
    "model execution (compute)": "模型执行（计算）",
    "copy host → device": "内存拷贝 Host → Device",
    "copy device → host": "内存拷贝 Device → Host",
    "copy device → device": "内存拷贝 Device → Device",
    "copy": "内存拷贝",
    "memset": "内存设置（memset）",
    "reduce (src added into dst)": "归约（src 加到 dst）",
    "random numbers": "随机数",
    "event record / wait": "Event 记录 / 等待",
    "callback": "回调",
    "API call (host)": "API 调用（Host）",
    "host waits for device": "Host 等待 Device",
    "graph": "图",
    "event record → wait": "Event 记录 → 等待",
    "failed or discarded": "失败或被丢弃",
    "named by a ✘ criterion": "✘ 项所指的任务",
    # why a task waits (sandbox.viz.queues)
    "predecessor": "前序任务",
    "event": "Event",
    "engine busy": "引擎忙",
    "ready": "就绪",
    "starting": "正在开始",
    "running": "运行中",
    "idle": "空闲",
    "nothing": "无",
    "none": "无",
    "running (filled)": "运行中（实心）",
    # memory
    "huge pages (2 MiB)": "大页（2 MiB）",
    "normal pages (4 KiB)": "普通页（4 KiB）",
    "rounding": "对齐填充",
    "free pending": "释放待完成",
    "pool (held, not in use)": "内存池（已持有，未使用）",
    "free": "空闲",
    "huge": "大页",  # a block's pages, in the memory summary's "{} pages"
    "normal": "普通页",
    "huge1g": "1 GiB 大页",
    "pinned": "锁页内存",
    ", ": "，",
    "an event not in the log": "日志中没有的 Event",
    "a pool not in the log": "日志中没有的内存池",
    "machine not described in the log": "日志中没有描述机器",
    # rows
    "Host": "Host",
    "Peer link": "Device 间链路",
    "Callback": "回调",
}

# -- templates: filled by i18n.text, and matched by i18n.translate -------------------------------
TEMPLATES = {
    # the Gantt chart
    "Task timeline ({} view)   total {} · copy {} · compute {} · overlap {}": (
        "任务时间线（{}视图）   总计 {} · 拷贝 {} · 计算 {} · 重叠 {}"
    ),
    "total {} · copy {} · compute {} · overlap {}": "总计 {} · 拷贝 {} · 计算 {} · 重叠 {}",
    "virtual time ({})": "虚拟时间（{}）",
    # rows of the timeline (sandbox.viz.timeline, columns); i18n tries the template with the most text first
    "NPU {} Stream {} ({})": "NPU {} Stream {}（{}）",
    "NPU {} Stream {} · {}": "NPU {} Stream {} · {}",
    "NPU {} Stream {}": "NPU {} Stream {}",
    "NPU {} Peer link #{}": "NPU {} Device 间链路 #{}",
    "NPU {} Peer link": "NPU {} Device 间链路",
    "NPU {} Callback #{}": "NPU {} 回调 #{}",
    "NPU {} Callback": "NPU {} 回调",
    "Host thread {} ({})": "Host 线程 {}（{}）",
    "Host thread {}": "Host 线程 {}",
    "Process {} thread {} ({})": "进程 {} 线程 {}（{}）",
    "Process {} thread {}": "进程 {} 线程 {}",
    "pid {} thread {} · {}": "进程 {} 线程 {} · {}",
    "pid {} thread {}": "进程 {} 线程 {}",
    "thread {} · {}": "线程 {} · {}",
    "thread {}": "线程 {}",
    "Host process {}": "Host 进程 {}",
    "Stream #{}": "Stream #{}",
    "Stream {}": "Stream {}",
    "stream {}": "Stream {}",
    "event {} on NPU {}": "NPU {1} 上的 Event {0}",
    # memory blocks (sandbox.viz.memory)
    "pool {} block {}": "内存池 {} 块 {}",
    "pool {} segment": "内存池 {} 段",
    "pool {}": "内存池 {}",
    "block {}": "块 {}",
    "host {}": "Host {}",
    "Device memory at {}": "{} 时的 Device 内存",
    "Host pinned memory: {} block{}, {}": "Host 锁页内存：{0} 个块，{2}",
    "{} blocks at one address": "同一地址上的 {} 个块",
    "{}\n{} each": "{}\n每个 {}",
    " (first {} shown)": "（显示前 {}）",
    "NPU {}: used {} of {}, free {}, largest free {}, {} free extent{}, fragmentation {}{}": (
        "NPU {0}：已用 {1} / {2}，空闲 {3}，最大空闲 {4}，{5} 段空闲区，碎片率 {7}{8}"
    ),
    # the stream queues (sandbox.viz.queues)
    "Stream queues at {}": "{} 时的 Stream 队列",
    "{} done": "已完成 {}",
    "\n{} failed": "\n失败 {}",
    "task {}": "任务 {}",
    "waits: {}": "等待：{}",
    "waiting: {}": "等待：{}",
    "+{} more": "还有 {} 个",
    "after task {}": "在任务 {} 之后",
    "{} recorded by task {} on {}": "{0}，由{2}上的任务 {1} 记录",
    "{} recorded by task {}": "{}，由任务 {} 记录",
    "{} busy with task {}": "{} 正忙于任务 {}",
    "{} not yet free": "{} 尚未空闲",
    # the summaries (sandbox.viz.summary)
    "Timeline ({} view): {}, {}, ends at {}": "时间线（{}视图）：{}，{}，结束于 {}",
    "total {}, copy {}, compute {}, overlap {}, host blocked {}": "总计 {}，拷贝 {}，计算 {}，重叠 {}，Host 阻塞 {}",
    "busy {}": "忙碌 {}",
    "  {}: {} task {} -> {} task {} at {}": "  {}：{} 任务 {} -> {} 任务 {}，于 {}",
    "NPU {}: used {} of {} (get_mem_info free {}, total {}), {}, largest free {}, {}, fragmentation {}": (
        "NPU {}：已用 {} / {}（get_mem_info free {}，total {}），{}，最大空闲 {}，{}，碎片率 {}"
    ),
    "Host pinned: {}, {}": "Host 锁页内存：{}，{}",
    " at +{}": "，位于 +{}",
    "reserved {}": "占用 {}",
    "owned by {}": "属于 {}",
    "{}: {}{}, {} pages{}": "{}：{}{}，{}{}",
    "task {} {}": "任务 {} {}",
    " ({} failed)": "（失败 {}）",
    "{}: running {}; {} waiting; {} finished{}": "{}：运行 {}；{} 个等待；{} 个已完成{}",
    "  task {} {} waits: {} ({})": "  任务 {} {} 等待：{}（{}）",
    "{} ({}), {}, {} AI cores, {} each": "{}（{}），{}，{} 个 AI Core，每个 {}",
    "tasks: {}": "任务：{}",
    "peak device memory {}, {}": "Device 内存峰值 {}，{}",
    "  {} hazard {}: {}": "  {} 隐患（hazard）{}：{}",
    "  {} leak report ({}): {} still held": "  {} 泄漏报告（{}）：{} 仍被持有",
    # counts ("{} " + the English word; Chinese has no plural, a measure word instead)
    "{} task": "{} 个任务",
    "{} API call": "{} 次 API 调用",
    "{} call": "{} 次调用",
    "{} callback": "{} 次回调",
    "{} block": "{} 个块",
    "{} free extent": "{} 段空闲区",
    "{} device": "{} 个 Device",
    "{} host thread": "{} 个 Host 线程",
    "{} stream": "{} 条 Stream",
    "{} event": "{} 个 Event",
    "{} allocation": "{} 次分配",
    "{} error": "{} 个错误",
    "{} hazard": "{} 个隐患（hazard）",
    "{} item": "{} 项",
    "{} · {}": "{} · {}",
}

# -- the dashboard's own controls and tooltips (sandbox/widgets/views.js), filled by its tx() ----
WIDGET = {
    "▶ play": "▶ 播放",
    "❚❚ pause": "❚❚ 暂停",
    "◀ step": "◀ 上一步",
    "step ▶": "下一步 ▶",
    "time: the arrow keys move between change times": "时间：方向键在各变化时刻之间移动",
    "rows per stream": "每条 Stream 一行",
    "rows per engine": "每个引擎一行",
    "colour by kind": "按类型着色",
    "colour by stream": "按 Stream 着色",
    "reset zoom": "重置缩放",
    "wheel: zoom · drag: pan · click a task: its dependencies · click the axis: move the cursor": (
        "滚轮：缩放 · 拖动：平移 · 点击任务：查看它的依赖 · 点击时间轴：移动光标"
    ),
    "nothing has run yet": "还没有运行任何东西",
    "t = {} of {}": "t = {} / {}",
    "at the start of the trace: nothing earlier to step to": "已在 trace 开头：没有更早的时刻",
    "at the end of the trace: nothing happens after it": "已在 trace 末尾：之后没有任何事情发生",
    "previous change": "上一个变化",
    "next change": "下一个变化",
    "end of the trace": "trace 末尾",
    "start of the trace": "trace 开头",
    "Task timeline ({} view)   {}": "任务时间线（{}视图）   {}",
    "stream order": "Stream 内顺序",
    "{}  (call {}, returned {})": "{}  （第 {} 次调用，返回 {}）",
    "blocked waiting for the device {}": "阻塞等待 Device {}",
    "task {}: {}  ({})": "任务 {}：{}  （{}）",
    "{} · engine {} · NPU {}": "{} · 引擎 {} · NPU {}",
    "submitted {}": "提交于 {}",
    ", not started": "，尚未开始",
    ", ran {} → ": "，运行 {} → ",
    "(unfinished)": "（未完成）",
    "block dim {}, {} cores": "block dim {}，{} 个核",
    "failed with {}": "失败，错误码 {}",
    "submitted by {} (call {}) on {}": "由 {} 提交（第 {} 次调用），在 {} 上",
    "callback {}": "回调 {}",
    "task {} {} ({})": "任务 {} {}（{}）",
    "waited for: {}": "等待了：{}",
    "waited on by: {}": "被等待：{}",
    "{} by {}": "{}，通过{}",
    "{}: {} at +{}": "{}：{}，位于 +{}",
    "reserved {}, {}": "占用 {}，{}",
    ", owned by {}": "，属于 {}",
    "allocated {}": "分配于 {}",
    ", free asked {}": "，请求释放于 {}",
    ", freed {}": "，释放于 {}",
    # the dashboard's and the stepper's Python side (sandbox/widgets/dashboard.py, stepper.py)
    "({} view, colour by {})": "（{}视图，按{}着色）",
    "kind": "类型",
    "stream": "Stream",
    "Dashboard: {} {}": "仪表盘：{} {}",
    "Dashboard at {} of {} {}: {} task{}, total {}, copy {}, compute {}, overlap {}": (
        "仪表盘，{0} / {1} {2}：{3} 个任务，总计 {5}，拷贝 {6}，计算 {7}，重叠 {8}"
    ),
    "next step ▶": "下一步 ▶",
    "run to end ▶▶": "运行到结束 ▶▶",
    "finished": "已结束",
    "{}: {}": "{}：{}",  # the step-through's state and its last step
    "{} step{} run": "已运行 {0} 步",
    "stopped by {}": "因 {} 而停止",
    "stopped: the last step raised {}": "已停止：最后一步抛出了 {}",
    "the program has run to its end: no step left": "程序已运行到结束：没有剩下的步骤",
    "run the next step": "运行下一步",
    "run every remaining step": "运行剩下的每一步",
}

TEXTS = {**WORDS, **TEMPLATES, **WIDGET}

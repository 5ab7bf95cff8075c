// The dashboard in the browser: Gantt chart, memory map and stream queues at a time cursor.
//
// Everything is drawn here from the columns the kernel sent once (sandbox/viz/columns.py),
// so zooming, hovering, moving the cursor, stepping and playing cost no round trip: every
// panel is redrawn in the same animation frame.  The cursor's time goes back to the kernel
// (the model's `t`) a moment after it stops moving.  Plain ES module for anywidget: no
// bundler, no build step.

const ROW_H = 18, BAR_H = 12, BLOCKED_H = 5, AXIS_H = 26, TITLE_H = 18, LABEL_W = 190;
const MEM_ROW_H = 54, SYNC_MS = 150, PLAY_FRAMES = 150, PLAY_MS = 50;
const MICRO = "\u00b5";

function fmtTime(ns) {
  const a = Math.abs(ns);
  if (a >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (a >= 1e3) return `${(ns / 1e3).toFixed(3)} ${MICRO}s`;
  return `${Math.round(ns)} ns`;
}
function fmtBytes(n) {
  const a = Math.abs(n);
  for (const [u, s] of [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]]) {
    if (a >= s) return `${(n / s).toFixed(1)} ${u}`;
  }
  return `${n} B`;
}
function fmtSize(n) {
  const units = [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]];
  for (let i = 0; i < units.length; i++) {
    const [u, s] = units[i];
    if (n < s) continue;
    const whole = Math.floor(n / s), rest = n % s;
    if (rest === 0) return `${whole} ${u}`;
    for (const [su, ss] of units.slice(i + 1)) {
      if (rest % ss === 0 && rest >= ss) return `${whole} ${u} + ${rest / ss} ${su}`;
    }
    break;
  }
  return `${n.toLocaleString("en-US")} B`;
}
// The chosen language's texts (sandbox/viz/texts_zh.py, sent with the data under "zh", none in
// English: {texts, labels}): tx fills a str.format template ("{}" fields, or "{0}" to reorder),
// L translates a label made in English (whole, or by the label template with the most text of
// its own), as sandbox.i18n.text and i18n.label do.
let TEXTS = {}, LABELS = [];
function setTexts(texts) {
  TEXTS = (texts && texts.texts) || {};
  const esc = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  LABELS = ((texts && texts.labels) || [])
    .sort((a, b) => b.replace(/\{\}/g, "").length - a.replace(/\{\}/g, "").length)
    .map((k) => [new RegExp("^" + k.split("{}").map(esc).join("([\\s\\S]*?)") + "$"), TEXTS[k]]);
}
function fill(template, args) {
  let next = 0;
  return template.replace(/\{(\d*)\}/g, (_, n) => String(args[n === "" ? next++ : Number(n)]));
}
const tx = (template, ...args) => fill(TEXTS[template] ?? template, args);
function L(label) {
  if (!label || !LABELS.length) return label;
  if (label in TEXTS) return TEXTS[label];
  for (const [re, zh] of LABELS) {
    const m = re.exec(label);
    if (m) return fill(zh, m.slice(1).map(L));
  }
  return label;
}
const plural = (n, w) => (TEXTS["{} " + w] ? tx("{} " + w, n) : `${n} ${w}${n === 1 ? "" : "s"}`);

function typed(v, T) {
  if (v instanceof DataView) return new T(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  if (v instanceof ArrayBuffer) return new T(v.slice(0));
  if (ArrayBuffer.isView(v)) return new T(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  return new T(0);
}

// -- the data, decoded once -------------------------------------------------------------
function decode(data) {
  const m = data.meta, b = data.buffers, D = {};
  for (const [k, v] of Object.entries(b)) {
    const f64 = /(_start|_end|_submit|_blocked|_nbytes|_offset|_size|_reserved|_allocated|_freed|_free_called)$/.test(k) || k === "times";
    D[k] = typed(v, f64 ? Float64Array : Int32Array);
  }
  D.meta = m;
  D.pal = m.palette;
  D.times = D.times.filter((x) => x >= m.t_start && x <= m.t_end);   // the slider's stops
  // each call's arguments as Python wrote its tuple: "(('count', 4096), ('kind', 1))"
  D.args = (m.args ? m.args.split("\n") : []).map((a) =>
    a.replace(/^\(|,?\)$/g, "").replace(/\('([^']*)', /g, "$1=").replace(/\)(, |$)/g, "$1"));
  const n = m.n_tasks;
  // the tasks of each row, sorted by start, per view
  D.rowTasks = {};
  for (const [view, col] of [["logical", D.task_lrow], ["physical", D.task_prow]]) {
    const lists = m.rows[view].map(() => []);
    for (let i = 0; i < n; i++) {
      const r = col[i];
      if (r >= 0 && !Number.isNaN(D.task_start[i])) lists[r].push(i);
    }
    for (const l of lists) l.sort((x, y) => D.task_start[x] - D.task_start[y] || x - y);
    D.rowTasks[view] = lists.map((l) => Int32Array.from(l));
  }
  const hostRows = m.rows.logical.map(() => []);
  for (let i = 0; i < m.n_calls; i++) hostRows[D.call_row[i]].push(i);
  D.rowCalls = hostRows.map((l) => Int32Array.from(l.sort((x, y) => D.call_start[x] - D.call_start[y] || x - y)));
  const cbRows = m.rows.logical.map(() => []);
  for (let i = 0; i < m.n_callbacks; i++) cbRows[D.cb_row[i]].push(i);
  D.rowCbs = cbRows.map((l) => Int32Array.from(l.sort((x, y) => D.cb_start[x] - D.cb_start[y])));
  // per stream, its tasks in submission order; who waited on whom
  D.streamTasks = m.streams.map(() => []);
  D.next = new Int32Array(n).fill(-1);
  D.waiters = new Map();
  for (let i = 0; i < n; i++) {
    D.streamTasks[D.task_stream[i]].push(i);
    if (D.task_prev[i] >= 0) D.next[D.task_prev[i]] = i;
    const w = D.task_waits[i];
    if (w >= 0) { if (!D.waiters.has(w)) D.waiters.set(w, []); D.waiters.get(w).push(i); }
  }
  D.colours = {};
  D.kindColour = m.kinds.map((k) => m.palette.kinds[k] || m.palette.other);
  D.byNumber = new Map();
  for (let i = 0; i < n; i++) D.byNumber.set(D.task_task[i], i);
  return D;
}

function taskColour(D, i, colourBy) {
  if (colourBy === "stream") {
    const s = D.pal.streams;
    return s[D.task_stream[i] % s.length];
  }
  return D.kindColour[D.task_ckind[i]];
}

function taskLabel(D, i) {
  const ck = D.meta.kinds[D.task_ckind[i]], name = D.meta.strings[D.task_name[i]];
  const short = { memcpy_h2d: "H2D", memcpy_d2h: "D2H", memcpy_d2d: "D2D" }[ck];
  return short ? `${name} ${short}` : name;
}

function lowerBound(arr, key, value) {   // first index with key(arr[i]) >= value
  let lo = 0, hi = arr.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (key(arr[mid]) < value) lo = mid + 1; else hi = mid; }
  return lo;
}

function niceStep(span, ticks) {
  const raw = span / Math.max(1, ticks), p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

// the axis reads absolute virtual time, like the clock label: "1000.200 ms"
function axisUnit(step, at) {
  const unit = at >= 1e6 ? ["ms", 1e6] : at >= 1e3 ? [`${MICRO}s`, 1e3] : ["ns", 1];
  const dec = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / unit[1]) - 1e-9)));
  return { name: unit[0], scale: unit[1], dec };
}

// -- queues and memory at t (sandbox/viz/queues.py and memory.py, ported) ----------------
function done(D, i, t) { return i >= 0 && !Number.isNaN(D.task_end[i]) && D.task_end[i] <= t; }

export function queuesAt(D, t) {
  const m = D.meta, n = m.n_tasks, busy = new Map();
  for (let i = 0; i < n; i++) {
    const s = D.task_start[i], e = D.task_end[i];
    if (!Number.isNaN(s) && s <= t && (Number.isNaN(e) || e > t)) {
      const key = `${D.task_device[i]}|${D.task_engine[i]}`, num = D.task_task[i];
      if (!busy.has(key) || busy.get(key) > num) busy.set(key, num);
    }
  }
  const out = [];
  m.streams.forEach((s, si) => {
    const [, device, sid, , isDefault, label, created, destroyed] = s;
    const mine = D.streamTasks[si].filter((i) => D.task_submit[i] <= t);
    const alive = created <= t && (destroyed < 0 || destroyed > t);
    if (!mine.length && (!alive || isDefault || label)) return;
    const q = { label: `NPU ${device} Stream ${sid}`, running: [], waiting: [], finished: 0, failed: 0 };
    for (const i of mine) {
      if (done(D, i, t)) { q.finished++; if (D.task_status[i] !== 0) q.failed++; }
      else if (!Number.isNaN(D.task_start[i]) && D.task_start[i] <= t) q.running.push(i);
      else q.waiting.push([i, ...reason(D, i, t, busy)]);
    }
    out.push(q);
  });
  return out;
}

function reason(D, i, t, busy) {
  const m = D.meta, prev = D.task_prev[i];
  if (prev >= 0 && !done(D, prev, t)) return ["predecessor", `after task ${D.task_task[prev]}`];
  const waitsOn = D.task_waits_on[i];
  if (waitsOn) {
    const rec = D.task_waits[i];
    if (!done(D, rec, t)) {
      const where = rec >= 0 ? ` on ${m.streams[D.task_stream[rec]][8]}` : "";
      let ev = D.task_event[i];
      if (ev < 0 && rec >= 0) ev = D.task_event[rec];
      const evLabel = ev >= 0 ? m.strings[ev] : "an event not in the log";
      return ["event", `${evLabel} recorded by task ${waitsOn}${where}`];
    }
  }
  const eng = D.task_engine[i];
  if (eng >= 0) {
    const name = m.engines[eng], first = busy.get(`${D.task_device[i]}|${eng}`);
    if (first !== undefined) return ["engine busy", `${name} busy with task ${first}`];
    return ["engine busy", `${name} not yet free`];
  }
  return ["ready", "starting"];
}

export function queuesText(D, t) {
  const lines = [tx("Stream queues at {}", fmtTime(t))], name = (i) => D.meta.strings[D.task_name[i]];
  for (const q of queuesAt(D, t)) {
    const run = q.running.map((i) => tx("task {} {}", D.task_task[i], name(i))).join(", ") || tx("nothing");
    const failed = q.failed ? tx(" ({} failed)", q.failed) : "";
    lines.push(tx("{}: running {}; {} waiting; {} finished{}", L(q.label), run, q.waiting.length, q.finished, failed));
    for (const [i, r, why] of q.waiting) lines.push(tx("  task {} {} waits: {} ({})", D.task_task[i], name(i), L(r), L(why)));
  }
  return lines.join("\n");
}

export function memoryAt(D, t) {
  const m = D.meta, live = new Map();
  for (let i = 0; i < m.n_blocks; i++) {
    const fr = D.mem_freed[i];
    if (!(D.mem_allocated[i] <= t && (Number.isNaN(fr) || fr > t))) continue;
    const d = D.mem_device[i];
    if (!live.has(d)) live.set(d, []);
    live.get(d).push(i);
  }
  const devices = m.devices.map(([d, total, win]) => {
    const blocks = (live.get(d) || []).slice().sort((x, y) =>
      D.mem_offset[x] - D.mem_offset[y] || (D.mem_kind[x] === 2) - (D.mem_kind[y] === 2));
    const held = blocks.filter((i) => D.mem_kind[i] !== 2);
    let used = 0, cursor = 0; const gaps = [];
    for (const i of held) {
      used += D.mem_reserved[i];
      if (D.mem_offset[i] > cursor) gaps.push(D.mem_offset[i] - cursor);
      cursor = Math.max(cursor, D.mem_offset[i] + D.mem_reserved[i]);
    }
    if (total > cursor) gaps.push(total - cursor);
    const free = Math.max(0, total - used), largest = gaps.length ? Math.max(...gaps) : 0;
    return { device: d, total, window: win, blocks, used, free, largest, holes: gaps.length,
             fragmentation: free === 0 ? 0 : 1 - largest / free };
  });
  const host = live.get(-1) || [];
  return { devices, host };
}

function deviceTitle(d) {
  const shown = d.window >= d.total ? "" : tx(" (first {} shown)", fmtBytes(d.window));
  return tx("NPU {}: used {} of {}, free {}, largest free {}, {} free extent{}, fragmentation {}{}", d.device,
    fmtBytes(d.used), fmtBytes(d.total), fmtBytes(d.free), fmtBytes(d.largest), d.holes, d.holes === 1 ? "" : "s",
    `${(100 * d.fragmentation).toFixed(1)}%`, shown);
}

// -- the widget -------------------------------------------------------------------------
function el(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function render({ model, el: root }) {
  let D = null, view0 = 0, view1 = 1, t = model.get("t"), selected = -1, playing = null;
  let frame = 0, hoverKey = "", syncTimer = null, width = 900;
  const stats = { frames: 0, playFrames: 0, playStart: 0, lastDraw: 0, bars: 0 };

  setTexts((model.get("data") || {}).texts);  // before the buttons are labelled
  const box = el("div", "sbx-dash", root);
  // the keys the dashboard's controls take (the slider's arrows, Home, End, Page keys; Enter
  // and space on a button) are theirs: JupyterLab's and Notebook 7's command mode, which binds
  // them to moving between cells, must not see them; other keys (Ctrl+S, Escape) go on to it
  const OWN_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End",
                            "PageUp", "PageDown", "Enter", " "]);
  box.addEventListener("keydown", (e) => {
    if (OWN_KEYS.has(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) e.stopPropagation();
  });
  const bar = el("div", "sbx-bar", box);
  const play = el("button", "sbx-play", bar, tx("▶ play"));
  const back = el("button", "sbx-back", bar, tx("◀ step"));
  const slider = el("input", "sbx-slider", bar);
  slider.type = "range"; slider.min = "0"; slider.step = "1";
  slider.setAttribute("aria-label", tx("time: the arrow keys move between change times"));
  const forward = el("button", "sbx-forward", bar, tx("step ▶"));
  const clock = el("span", "sbx-clock", bar);
  const why = el("span", "sbx-why", bar);
  const bar2 = el("div", "sbx-bar", box);
  const vLog = el("button", "sbx-view-logical", bar2, tx("rows per stream"));
  const vPhy = el("button", "sbx-view-physical", bar2, tx("rows per engine"));
  const cKind = el("button", "sbx-colour-kind", bar2, tx("colour by kind"));
  const cStream = el("button", "sbx-colour-stream", bar2, tx("colour by stream"));
  const reset = el("button", "sbx-reset", bar2, tx("reset zoom"));
  el("span", "sbx-hint", bar2, tx("wheel: zoom · drag: pan · click a task: its dependencies · click the axis: move the cursor"));
  const gWrap = el("div", "sbx-gantt", box);
  const canvas = el("canvas", "sbx-gantt-canvas", gWrap);
  const tip = el("div", "sbx-tip", gWrap);
  const details = el("div", "sbx-details", box);
  const mWrap = el("div", "sbx-mem", box);
  const mTitle = el("div", "sbx-mem-title", mWrap);
  const mCanvas = el("canvas", "sbx-mem-canvas", mWrap);
  const mHost = el("div", "sbx-mem-host", mWrap);
  const queues = el("pre", "sbx-queues sandbox-queues", box);
  const legend = el("div", "sbx-legend", box);

  function load() {
    const data = model.get("data");
    if (!data || !data.meta) { D = null; clock.textContent = tx("nothing has run yet"); return; }
    setTexts(data.texts);
    D = decode(data);
    view0 = D.meta.t_start; view1 = D.meta.t_end;
    const pad = (view1 - view0) * 0.02; view0 -= pad; view1 += pad;
    slider.max = String(Math.max(0, D.times.length - 1));
    selected = -1; details.textContent = "";
    buildLegend();
  }

  function buildLegend() {
    legend.textContent = "";
    const seen = new Set(["api", "blocked"]);
    for (let i = 0; i < D.meta.n_tasks && seen.size < 14; i++) seen.add(D.meta.kinds[D.task_ckind[i]]);
    const labels = new Set();
    for (const k of seen) {
      const lab = L(D.pal.labels[k] || k);
      if (labels.has(lab)) continue;
      labels.add(lab);
      const item = el("span", "sbx-key", legend);
      const sw = el("span", "sbx-swatch", item);
      sw.style.background = D.pal.kinds[k] || D.pal.other;
      if (k === "blocked") sw.style.height = "4px";
      el("span", "", item, lab);
    }
  }

  const rows = () => D.meta.rows[model.get("view")];
  const ticks = () => D.meta.ticks[model.get("view")];
  const plotW = () => Math.max(50, width - LABEL_W - 10);
  const xOf = (ns) => LABEL_W + ((ns - view0) / (view1 - view0)) * plotW();
  const tOf = (x) => view0 + ((x - LABEL_W) / plotW()) * (view1 - view0);

  function sizeCanvas(c, w, h) {
    const r = window.devicePixelRatio || 1;
    if (c.width !== Math.round(w * r) || c.height !== Math.round(h * r)) {
      c.width = Math.round(w * r); c.height = Math.round(h * r);
      c.style.width = `${w}px`; c.style.height = `${h}px`;
    }
    const ctx = c.getContext("2d");
    ctx.setTransform(r, 0, 0, r, 0, 0);
    return ctx;
  }

  // the set of tasks highlighted with the selection: it, what it waited for, what waited on it
  function related(i) {
    const before = [], after = [];
    if (D.task_prev[i] >= 0) before.push([D.task_prev[i], tx("stream order")]);
    if (D.task_waits[i] >= 0) before.push([D.task_waits[i], tx("event")]);
    if (D.next[i] >= 0) after.push([D.next[i], tx("stream order")]);
    for (const w of D.waiters.get(i) || []) after.push([w, tx("event")]);
    return { before, after };
  }

  function drawGantt() {
    const R = rows(), T = ticks(), h = TITLE_H + R.length * ROW_H + AXIS_H;
    const ctx = sizeCanvas(canvas, width, h), pal = D.pal, colourBy = model.get("colour");
    const view = model.get("view"), pw = plotW(), nsPerPx = (view1 - view0) / pw;
    const minW = pal.min_bar_px, gap = pal.gap_px;
    ctx.clearRect(0, 0, width, h);
    ctx.font = "11px sans-serif"; ctx.fillStyle = "#222"; ctx.textBaseline = "middle";
    ctx.fillText(tx("Task timeline ({} view)   {}", L(view), D.meta.title), 4, TITLE_H / 2);
    let rel = null;
    if (selected >= 0) { rel = related(selected); rel.all = new Set([selected, ...rel.before.map((x) => x[0]), ...rel.after.map((x) => x[0])]); }
    for (let r = 0; r < R.length; r++) {
      const y = TITLE_H + r * ROW_H;
      if (r % 2) { ctx.fillStyle = "#FAFAFA"; ctx.fillRect(LABEL_W, y, pw, ROW_H); }
      if (r > 0 && R[r][1] !== R[r - 1][1]) { ctx.fillStyle = "#B0B0B0"; ctx.fillRect(0, y, width, 1); }
      ctx.fillStyle = "#222"; ctx.textAlign = "right";
      ctx.fillText(T[r], LABEL_W - 6, y + ROW_H / 2);
      ctx.textAlign = "left";
    }
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, TITLE_H, pw, R.length * ROW_H); ctx.clip();
    // one run of sub-pixel bars becomes one aggregate bar
    let run = null;
    stats.bars = 0;  // task bars drawn: sub-pixel runs count once (data-bars, for the tests)
    const flush = () => { if (run) { ctx.fillStyle = run.c; ctx.fillRect(run.x0, run.y, Math.max(minW, run.x1 - run.x0), run.h); stats.bars++; run = null; } };
    const put = (s, e, y, hh, c, dim) => {
      let x0 = xOf(s), x1 = xOf(e);
      if (x1 < LABEL_W - 2 || x0 > LABEL_W + pw + 2) return;
      const c2 = dim ? c + "55" : c;
      if (x1 - x0 < 1) {
        if (run && run.y === y && x0 <= run.x1 + 1) { run.x1 = Math.max(run.x1, x1, x0 + 1); if (run.c !== c2) run.c = "#555555"; return; }
        flush(); run = { x0, x1: Math.max(x1, x0 + 1), y, h: hh, c: c2 }; return;
      }
      flush();
      let w = x1 - x0;
      if (w > 3 * gap + 1) w -= gap;             // back-to-back tasks keep a visible gap
      ctx.fillStyle = c2; ctx.fillRect(x0, y, Math.max(minW, w), hh); stats.bars++;
    };
    for (let r = 0; r < R.length; r++) {
      const y = TITLE_H + r * ROW_H, yb = y + (ROW_H - BAR_H) / 2;
      const calls = D.rowCalls[r] || [], cbs = D.rowCbs[r] || [], tasks = D.rowTasks[view][r] || [];
      if (calls.length) {
        let k = Math.max(0, lowerBound(calls, (i) => D.call_end[i], view0) - 1);
        for (; k < calls.length && D.call_start[calls[k]] <= view1; k++) {
          const i = calls[k];
          put(D.call_start[i], D.call_end[i], yb, BAR_H, pal.kinds.api, rel !== null);
        }
        flush();
        k = Math.max(0, lowerBound(calls, (i) => D.call_end[i], view0) - 1);
        for (; k < calls.length && D.call_start[calls[k]] <= view1; k++) {
          const i = calls[k], bf = D.call_blocked[i];
          if (!Number.isNaN(bf) && bf < D.call_end[i]) put(bf, D.call_end[i], yb + BAR_H - BLOCKED_H, BLOCKED_H, pal.kinds.blocked, rel !== null);
        }
        flush();
      }
      for (const i of cbs) put(D.cb_start[i], D.cb_end[i], yb + 2, BAR_H - 4, pal.kinds.host_callback, rel !== null);
      flush();
      if (tasks.length) {
        let k = Math.max(0, lowerBound(tasks, (i) => D.task_start[i], view0) - 1);
        for (; k < tasks.length && D.task_start[tasks[k]] <= view1; k++) {
          const i = tasks[k], e = Number.isNaN(D.task_end[i]) ? D.meta.t_end : D.task_end[i];
          put(D.task_start[i], e, yb, BAR_H, taskColour(D, i, colourBy), rel !== null && !rel.all.has(i));
        }
        flush();
        // names on bars wide enough to hold them
        if (pw / Math.max(1, tasks.length) > 4 || (view1 - view0) < (D.meta.t_end - D.meta.t_start)) {
          ctx.font = "10px sans-serif"; ctx.fillStyle = "#FFFFFF"; ctx.textAlign = "center";
          k = Math.max(0, lowerBound(tasks, (i) => D.task_start[i], view0) - 1);
          let drawn = 0;
          for (; k < tasks.length && D.task_start[tasks[k]] <= view1 && drawn < 400; k++) {
            const i = tasks[k], e = Number.isNaN(D.task_end[i]) ? D.meta.t_end : D.task_end[i];
            const x0 = Math.max(LABEL_W, xOf(D.task_start[i])), x1 = Math.min(LABEL_W + pw, xOf(e));
            const lab = taskLabel(D, i);
            if (x1 - x0 >= 6.2 * lab.length + 6) {
              ctx.fillStyle = D.meta.kinds[D.task_ckind[i]] === "memset" ? "#000" : "#FFF";
              ctx.fillText(lab, (x0 + x1) / 2, y + ROW_H / 2); drawn++;
            }
          }
          ctx.textAlign = "left";
        }
      }
    }
    // event arrows (logical view): record's end -> wait's end
    if (view === "logical") {
      ctx.strokeStyle = "#333"; ctx.lineWidth = 1; let drawn = 0;
      for (const [rec, ws] of D.waiters) {
        if (drawn > 2000) break;
        for (const w of ws) {
          if (D.meta.kinds[D.task_kind[w]] !== "event_wait" || Number.isNaN(D.task_end[rec]) || Number.isNaN(D.task_end[w])) continue;
          const x0 = xOf(D.task_end[rec]), x1 = xOf(D.task_end[w]);
          if (Math.max(x0, x1) < LABEL_W || Math.min(x0, x1) > LABEL_W + pw) continue;
          const y0 = TITLE_H + (D.task_lrow[rec] + 0.5) * ROW_H, y1 = TITLE_H + (D.task_lrow[w] + 0.5) * ROW_H;
          ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke(); drawn++;
        }
      }
    }
    // the selection: outlines, and lines to what it waited for and what waited on it
    if (selected >= 0) {
      const box = (i) => {
        const r = view === "logical" ? D.task_lrow[i] : D.task_prow[i];
        if (r < 0 || Number.isNaN(D.task_start[i])) return null;
        const e = Number.isNaN(D.task_end[i]) ? D.meta.t_end : D.task_end[i];
        const x0 = xOf(D.task_start[i]), x1 = Math.max(x0 + minW, xOf(e));
        return { x0, x1, y: TITLE_H + r * ROW_H + (ROW_H - BAR_H) / 2 };
      };
      const me = box(selected);
      ctx.lineWidth = 2; ctx.strokeStyle = "#000";
      for (const [i, how] of [...rel.before, ...rel.after]) {
        const b = box(i);
        if (!b || !me) continue;
        ctx.setLineDash(how === "event" ? [4, 3] : []);
        ctx.strokeRect(b.x0 - 1, b.y - 1, b.x1 - b.x0 + 2, BAR_H + 2);
        const isBefore = rel.before.some((x) => x[0] === i);
        ctx.beginPath();
        if (isBefore) { ctx.moveTo(b.x1, b.y + BAR_H / 2); ctx.lineTo(me.x0, me.y + BAR_H / 2); }
        else { ctx.moveTo(me.x1, me.y + BAR_H / 2); ctx.lineTo(b.x0, b.y + BAR_H / 2); }
        ctx.stroke();
      }
      ctx.setLineDash([]);
      if (me) { ctx.lineWidth = 3; ctx.strokeRect(me.x0 - 2, me.y - 2, me.x1 - me.x0 + 4, BAR_H + 4); }
      const c = D.task_call[selected];
      if (c >= 0) {
        const y = TITLE_H + D.call_row[c] * ROW_H + (ROW_H - BAR_H) / 2;
        ctx.lineWidth = 2; ctx.strokeRect(xOf(D.call_start[c]) - 1, y - 1, Math.max(minW, xOf(D.call_end[c]) - xOf(D.call_start[c])) + 2, BAR_H + 2);
      }
    }
    // the cursor
    const xc = xOf(t);
    ctx.fillStyle = pal.cursor; ctx.fillRect(xc - 0.75, TITLE_H, 1.5, R.length * ROW_H);
    ctx.restore();
    // the axis, in the clock's units
    const ya = TITLE_H + R.length * ROW_H;
    ctx.fillStyle = "#999"; ctx.fillRect(LABEL_W, ya, pw, 1);
    const step = niceStep(view1 - view0, Math.max(2, Math.floor(pw / 110)));
    const unit = axisUnit(step, Math.max(Math.abs(view0), Math.abs(view1)));
    ctx.fillStyle = "#333"; ctx.font = "10px sans-serif"; ctx.textAlign = "center";
    for (let v = Math.ceil(view0 / step) * step; v <= view1; v += step) {
      const x = xOf(v);
      ctx.fillRect(x, ya, 1, 4);
      ctx.fillText((v / unit.scale).toFixed(unit.dec), x, ya + 10);
    }
    ctx.textAlign = "left";
    ctx.fillText(tx("virtual time ({})", unit.name), LABEL_W, ya + 21);
    ctx.beginPath(); ctx.moveTo(xc, ya); ctx.lineTo(xc - 5, ya + 7); ctx.lineTo(xc + 5, ya + 7); ctx.closePath(); ctx.fill();
  }

  function drawMemory() {
    const mm = memoryAt(D, t), pal = D.pal;
    mTitle.textContent = tx("Device memory at {}", fmtTime(t));
    // a device's line too wide for the panel goes on two lines (split after a comma), never cut
    const measure = mCanvas.getContext("2d");
    measure.font = "11px sans-serif";
    const titles = mm.devices.map((d) => {
      const text = deviceTitle(d);
      if (measure.measureText(text).width <= width - 8) return [text];
      const parts = text.split(", ");
      let k = parts.length - 1;
      while (k > 1 && measure.measureText(parts.slice(0, k).join(", ") + ",").width > width - 8) k--;
      return [parts.slice(0, k).join(", ") + ",", parts.slice(k).join(", ")];
    });
    const extra = titles.some((lines) => lines.length > 1) ? 13 : 0, rowH = MEM_ROW_H + extra;
    mCanvas.dataset.titleLines = extra ? "2" : "1";
    const h = Math.max(1, mm.devices.length) * rowH + 4, ctx = sizeCanvas(mCanvas, width, h);
    ctx.clearRect(0, 0, width, h);
    const pw = plotW(), minW = pal.min_block_px;
    mCanvas._hits = [];
    mm.devices.forEach((d, k) => {
      const y = k * rowH;
      ctx.fillStyle = "#222"; ctx.font = "11px sans-serif"; ctx.textBaseline = "middle";
      titles[k].forEach((line, j) => ctx.fillText(line, 4, y + 9 + 13 * j));
      const yb = y + 20 + extra, hb = 22, win = Math.max(1, d.window), per = win / pw;
      ctx.fillStyle = pal.free; ctx.fillRect(LABEL_W, yb, pw, hb);
      ctx.strokeStyle = "#999"; ctx.lineWidth = 1; ctx.strokeRect(LABEL_W + 0.5, yb + 0.5, pw - 1, hb - 1);
      ctx.fillStyle = "#222"; ctx.textAlign = "right"; ctx.fillText(`NPU ${d.device}`, LABEL_W - 6, yb + hb / 2); ctx.textAlign = "left";
      for (const i of d.blocks) {
        const off = D.mem_offset[i];
        if (off >= win) continue;
        const x = LABEL_W + off / per, kind = D.mem_kind[i];
        const w = Math.max(minW, D.mem_reserved[i] / per), ws = Math.max(minW, D.mem_size[i] / per);
        const pending = !Number.isNaN(D.mem_free_called[i]) && D.mem_free_called[i] <= t;
        if (kind === 1) { ctx.fillStyle = pal.pool; ctx.fillRect(x, yb, w, hb); }
        else {
          ctx.fillStyle = pal.page; ctx.fillRect(x, yb + (kind === 2 ? 4 : 0), ws, hb - (kind === 2 ? 8 : 0));
          if (D.mem_reserved[i] > D.mem_size[i]) { ctx.globalAlpha = 0.35; ctx.fillRect(x + ws, yb, Math.max(0, w - ws), hb); ctx.globalAlpha = 1; }
          if (D.mem_page[i] === 1) {       // normal pages: cross-hatched
            ctx.strokeStyle = "#FFFFFF"; ctx.lineWidth = 1; ctx.beginPath();
            for (let xx = x; xx < x + ws; xx += 5) { ctx.moveTo(xx, yb); ctx.lineTo(xx + 5, yb + hb); }
            ctx.stroke();
          }
        }
        ctx.strokeStyle = pending ? "#000" : "#FFFFFF"; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, yb + 0.5, w - 1, hb - 1);
        if (pending) {
          ctx.save(); ctx.beginPath(); ctx.rect(x, yb, w, hb); ctx.clip(); ctx.strokeStyle = "#000"; ctx.beginPath();
          for (let xx = x - hb; xx < x + w; xx += 5) { ctx.moveTo(xx, yb + hb); ctx.lineTo(xx + hb, yb); }
          ctx.stroke(); ctx.restore();
        }
        mCanvas._hits.push([x, yb, w, hb, i]);
      }
    });
    const bytes = mm.host.reduce((a, i) => a + D.mem_reserved[i], 0);
    mHost.textContent = tx("Host pinned memory: {} block{}, {}", mm.host.length, mm.host.length === 1 ? "" : "s", fmtBytes(bytes));
  }

  function draw() {
    frame = 0;
    if (!D) return;
    const t0 = performance.now();
    const n = D.times.length;
    const idx = Math.max(0, lowerBound(D.times, (x) => x, t + 0.5) - 1);
    slider.value = String(idx);
    clock.textContent = tx("t = {} of {}", fmtTime(t), fmtTime(D.meta.t_end));
    const atStart = t <= D.meta.t_start, atEnd = t >= D.meta.t_end;
    back.disabled = atStart; forward.disabled = atEnd;
    back.title = atStart ? tx("at the start of the trace: nothing earlier to step to") : tx("previous change");
    forward.title = atEnd ? tx("at the end of the trace: nothing happens after it") : tx("next change");
    play.disabled = false;
    why.textContent = atEnd ? tx("end of the trace") : atStart ? tx("start of the trace") : "";
    for (const [b, on] of [[vLog, model.get("view") === "logical"], [vPhy, model.get("view") === "physical"],
                           [cKind, model.get("colour") === "kind"], [cStream, model.get("colour") === "stream"]]) {
      b.classList.toggle("sbx-on", on);
    }
    width = Math.max(400, gWrap.clientWidth || root.clientWidth || 900);
    drawGantt(); drawMemory();
    queues.textContent = queuesText(D, t);
    stats.frames++; stats.lastDraw = performance.now() - t0;
    box.dataset.t = String(t); box.dataset.view0 = String(view0); box.dataset.view1 = String(view1);
    box.dataset.frames = String(stats.frames); box.dataset.drawMs = stats.lastDraw.toFixed(2);
    box.dataset.n = String(n); box.dataset.bars = String(stats.bars);
    box.dataset.rows = String(rows().length); box.dataset.plotW = String(Math.round(plotW()));
  }
  const schedule = () => { if (!frame) frame = requestAnimationFrame(draw); };

  function setT(v, sync = true) {
    if (!D) return;
    t = Math.round(Math.max(D.meta.t_start, Math.min(D.meta.t_end, v)));
    schedule();
    if (sync) {
      clearTimeout(syncTimer);
      syncTimer = setTimeout(() => { model.set("t", t); model.save_changes(); }, playing ? 4 * SYNC_MS : SYNC_MS);
    }
  }
  function stepTo(dir) {
    const T = D.times;
    if (dir > 0) { const i = lowerBound(T, (x) => x, t + 0.5); setT(i < T.length ? T[i] : D.meta.t_end); }
    else { const i = lowerBound(T, (x) => x, t - 0.5); setT(i > 0 ? T[i - 1] : D.meta.t_start); }
  }
  function stop() {
    if (!playing) return;
    clearInterval(playing); playing = null; play.textContent = tx("▶ play");
    const dt = (performance.now() - stats.playStart) / 1000;
    box.dataset.fps = (stats.playFrames / Math.max(dt, 1e-3)).toFixed(1);
    model.set("t", t); model.save_changes();
  }
  play.onclick = () => {
    if (playing) return stop();
    if (t >= D.meta.t_end) setT(D.meta.t_start, false);
    play.textContent = tx("❚❚ pause");
    const stepNs = (D.meta.t_end - D.meta.t_start) / PLAY_FRAMES;
    stats.playFrames = 0; stats.playStart = performance.now();
    playing = setInterval(() => {
      stats.playFrames++;
      setT(t + stepNs);
      if (t >= D.meta.t_end) stop();
    }, PLAY_MS);
  };
  back.onclick = () => stepTo(-1);
  forward.onclick = () => stepTo(+1);
  slider.oninput = () => setT(D.times[Number(slider.value)]);
  vLog.onclick = () => { model.set("view", "logical"); model.save_changes(); schedule(); };
  vPhy.onclick = () => { model.set("view", "physical"); model.save_changes(); schedule(); };
  cKind.onclick = () => { model.set("colour", "kind"); model.save_changes(); schedule(); };
  cStream.onclick = () => { model.set("colour", "stream"); model.save_changes(); schedule(); };
  const resetZoom = () => {
    const pad = (D.meta.t_end - D.meta.t_start) * 0.02;
    view0 = D.meta.t_start - pad; view1 = D.meta.t_end + pad; schedule();
  };
  reset.onclick = resetZoom;

  // -- zoom, pan, hover, select ---------------------------------------------------------
  function hit(x, y) {
    const r = Math.floor((y - TITLE_H) / ROW_H), R = rows();
    if (r < 0 || r >= R.length || x < LABEL_W) return null;
    const tol = 3 * (view1 - view0) / plotW(), at = tOf(x), view = model.get("view");
    const near = (list, s, e) => {
      if (!list || !list.length) return -1;
      let k = Math.max(0, lowerBound(list, (i) => s[i], at + tol) - 1), best = -1, bestD = Infinity;
      for (let j = Math.max(0, k - 2); j < Math.min(list.length, k + 3); j++) {
        const i = list[j], ee = Number.isNaN(e[i]) ? D.meta.t_end : Math.max(e[i], s[i] + tol / 1.5);
        const d = at < s[i] ? s[i] - at : at > ee ? at - ee : 0;
        if (d <= tol && d < bestD) { best = i; bestD = d; }
      }
      return best;
    };
    const cb = near(D.rowCbs[r], D.cb_start, D.cb_end);
    if (cb >= 0) return { type: "callback", i: cb };
    const task = near(D.rowTasks[view][r], D.task_start, D.task_end);
    if (task >= 0) return { type: "task", i: task };
    const call = near(D.rowCalls[r], D.call_start, D.call_end);
    if (call >= 0) return { type: "call", i: call };
    return null;
  }
  function callText(c) {
    const m = D.meta, bf = D.call_blocked[c], lines = [
      tx("{}  (call {}, returned {})", m.strings[D.call_name[c]], D.call_seq[c], D.call_ret[c]),
      L(m.rows.logical[D.call_row[c]][0]),
      `${fmtTime(D.call_start[c])} → ${fmtTime(D.call_end[c])}  (${fmtTime(D.call_end[c] - D.call_start[c])})`];
    if (!Number.isNaN(bf)) lines.push(tx("blocked waiting for the device {}", fmtTime(D.call_end[c] - bf)));
    if (!Number.isNaN(bf) && D.call_waited[c] >= 0) lines.push(tx("waited for: {}", L(m.strings[D.call_waited[c]])));
    if (D.args[c]) lines.push(D.args[c]);
    return lines;
  }
  function taskText(i) {
    const m = D.meta, s = m.streams[D.task_stream[i]], e = D.task_end[i], st = D.task_start[i];
    const eng = D.task_engine[i] >= 0 ? m.engines[D.task_engine[i]] : tx("none");
    const lines = [tx("task {}: {}  ({})", D.task_task[i], taskLabel(D, i), m.kinds[D.task_ckind[i]]),
      tx("{} · engine {} · NPU {}", L(s[0]), eng, D.task_device[i]),
      tx("submitted {}", fmtTime(D.task_submit[i])) + (Number.isNaN(st) ? tx(", not started") : tx(", ran {} → ", fmtTime(st)) +
        (Number.isNaN(e) ? tx("(unfinished)") : `${fmtTime(e)}  (${fmtTime(e - st)})`))];
    const extra = [];
    if (D.task_nbytes[i]) extra.push(`${fmtSize(D.task_nbytes[i])}`);
    if (D.task_block_dim[i]) extra.push(tx("block dim {}, {} cores", D.task_block_dim[i], D.task_cores[i]));
    if (D.task_event[i] >= 0) extra.push(m.strings[D.task_event[i]]);
    if (D.task_status[i]) extra.push(tx("failed with {}", D.task_status[i]));
    if (extra.length) lines.push(extra.join(" · "));
    const c = D.task_call[i];
    if (c >= 0) lines.push(tx("submitted by {} (call {}) on {}", m.strings[D.call_name[c]], D.call_seq[c], L(m.rows.logical[D.call_row[c]][0])) + (D.args[c] ? `: ${D.args[c]}` : ""));
    return lines;
  }
  let quiet = "";  // the task just clicked: its details are in the panel, its tip stays away until the pointer leaves it
  function showTip(h, x, y) {
    const key = h ? `${h.type}${h.i}` : "";
    if (key !== quiet) quiet = "";
    if (!h || key === quiet) { tip.style.display = "none"; hoverKey = ""; return; }
    if (key !== hoverKey) {
      hoverKey = key;
      const lines = h.type === "task" ? taskText(h.i) : h.type === "call" ? callText(h.i) :
        [tx("callback {}", D.meta.strings[D.cb_name[h.i]]), `${fmtTime(D.cb_start[h.i])} → ${fmtTime(D.cb_end[h.i])}`];
      tip.textContent = lines.join("\n");
      tip.dataset.kind = h.type;
    }
    tip.style.display = "block";
    tip.style.left = `${Math.min(x + 12, width - 360)}px`; tip.style.top = `${y + 14}px`;
  }
  function showDetails() {
    if (selected < 0) { details.textContent = ""; return; }
    const r = related(selected), name = (i) => tx("task {} {} ({})", D.task_task[i], taskLabel(D, i), L(D.meta.streams[D.task_stream[i]][0]));
    const lines = taskText(selected);
    lines.push(tx("waited for: {}", r.before.map(([i, how]) => tx("{} by {}", name(i), how)).join("; ") || tx("nothing")));
    lines.push(tx("waited on by: {}", r.after.map(([i, how]) => tx("{} by {}", name(i), how)).join("; ") || tx("nothing")));
    details.textContent = lines.join("\n");
  }

  let drag = null;
  canvas.addEventListener("wheel", (ev) => {
    if (!D || ev.offsetX < LABEL_W) return;
    ev.preventDefault();
    if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
      const d = ((ev.deltaX || ev.deltaY) / plotW()) * (view1 - view0);
      view0 += d; view1 += d;
    } else {
      const at = tOf(ev.offsetX), f = Math.pow(1.0015, ev.deltaY);
      const span = Math.max(20, (view1 - view0) * f);
      view0 = at - (at - view0) * (span / (view1 - view0)); view1 = view0 + span;
    }
    schedule();
  }, { passive: false });
  canvas.addEventListener("mousedown", (ev) => { drag = { x: ev.offsetX, v0: view0, v1: view1, moved: false }; });
  window.addEventListener("mouseup", () => { setTimeout(() => { drag = null; }, 0); });
  canvas.addEventListener("mousemove", (ev) => {
    if (!D) return;
    if (drag && (ev.buttons & 1)) {
      const dx = ev.offsetX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) {
        const d = (dx / plotW()) * (drag.v1 - drag.v0);
        view0 = drag.v0 - d; view1 = drag.v1 - d; showTip(null); schedule(); return;
      }
    }
    showTip(hit(ev.offsetX, ev.offsetY), ev.offsetX, ev.offsetY);
  });
  canvas.addEventListener("mouseleave", () => showTip(null));
  canvas.addEventListener("click", (ev) => {
    if (!D || (drag && drag.moved)) return;
    const R = rows();
    if (ev.offsetY >= TITLE_H + R.length * ROW_H && ev.offsetX >= LABEL_W) { setT(tOf(ev.offsetX)); return; }
    const h = hit(ev.offsetX, ev.offsetY);
    selected = h && h.type === "task" ? h.i : -1;
    model.set("selected", selected >= 0 ? D.task_task[selected] : 0); model.save_changes();
    if (selected >= 0) { quiet = `task${selected}`; tip.style.display = "none"; hoverKey = ""; }  // the details panel says it now
    showDetails(); schedule();
  });
  canvas.addEventListener("dblclick", resetZoom);
  mCanvas.addEventListener("mousemove", (ev) => {
    const hitB = (mCanvas._hits || []).find(([x, y, w, h]) => ev.offsetX >= x - 2 && ev.offsetX <= x + w + 2 && ev.offsetY >= y && ev.offsetY <= y + h);
    if (!hitB) { tip.style.display = "none"; return; }
    const i = hitB[4], [label, policy, owner] = D.meta.block_labels[i];
    const fr = D.mem_freed[i], fc = D.mem_free_called[i];
    tip.textContent = [tx("{}: {} at +{}", L(label), fmtSize(D.mem_size[i]), fmtSize(D.mem_offset[i])),
      tx("reserved {}, {}", fmtSize(D.mem_reserved[i]), L(policy)) + (owner ? tx(", owned by {}", L(owner)) : ""),
      tx("allocated {}", fmtTime(D.mem_allocated[i])) + (Number.isNaN(fc) ? "" : tx(", free asked {}", fmtTime(fc))) +
        (Number.isNaN(fr) ? "" : tx(", freed {}", fmtTime(fr)))].join("\n");
    tip.dataset.kind = "block"; hoverKey = "";
    tip.style.display = "block";
    tip.style.left = `${Math.min(ev.offsetX + 12, width - 360)}px`;
    tip.style.top = `${gWrap.offsetHeight + details.offsetHeight + mTitle.offsetHeight + ev.offsetY + 14}px`;
  });
  mCanvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });

  model.on("change:data", () => { load(); t = model.get("t"); schedule(); });
  model.on("change:t", () => { const v = model.get("t"); if (v !== t && !playing) { t = v; schedule(); } });
  model.on("change:view", schedule);
  model.on("change:colour", schedule);
  const ro = new ResizeObserver(() => schedule());
  ro.observe(root);
  load();
  draw();
  return () => { ro.disconnect(); clearInterval(playing); clearTimeout(syncTimer); };
}

export default { render };

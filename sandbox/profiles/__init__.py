"""Hardware profiles: every figure the timing model uses, each with where it comes from.

A figure's source is one of the tags below; "assumption" means no public figure was
found and the value is a round, plausible choice that a learner can change.

* INI     CANN 8.1.RC1 ``platform_config/<SoC>.ini`` (compiler's platform description)
* RT-API  CANN runtime API reference (hicann/runtime ``docs/zh/api_ref``)
* RT-SRC  CANN runtime source (hicann/runtime ``src/runtime/...``)
* RT-FAQ  CANN runtime FAQ
* T-...   third-party measurement or data sheet (named in the field's comment)
* ASYNC-ARTICLE the sync-vs-async table of a community article on CANN asynchronous execution
  (CANN 训练营 2025; not official documentation)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

GiB = 1 << 30
MiB = 1 << 20
KiB = 1 << 10
US = 1_000  # ns per microsecond
MS = 1_000_000  # ns per millisecond


@dataclass(frozen=True)
class HostCosts:
    """Host-side time of each runtime call, in ns (what the calling thread is charged)."""

    default: int = 1 * US  # any call not listed (assumption)
    init: int = 50 * MS  # aclInit (assumption)
    first_set_device: int = 1000 * MS  # first SetDevice of a process: "seconds" (RT-FAQ); we use 1 s
    open_device: int = 20 * MS  # SetDevice opening a further device: "milliseconds" (RT-FAQ)
    set_device: int = 2 * US  # SetDevice of a device already open (assumption)
    reset_device: int = 5 * MS  # releasing a device's resources (assumption)
    create_context: int = 2 * MS  # (assumption)
    create_stream: int = 50 * US  # (assumption)
    destroy_stream: int = 30 * US  # (assumption)
    create_event: int = 5 * US  # (assumption)
    kernel_launch: int = 8600  # 8.6 us: tiny kernel, optimized launcher on 910B2 (T-TRITON #1675)
    memcpy_async: int = 5 * US  # submit an async copy (assumption, same order as a launch)
    memset_async: int = 4 * US  # (assumption)
    event_record: int = 2 * US  # (assumption)
    stream_wait_event: int = 2 * US  # (assumption)
    synchronize: int = 10 * US  # call + wake-up latency of a blocking sync (assumption)
    malloc: int = 20 * US  # "frequent malloc/free is slow" (RT-API 11-01); value assumption
    free: int = 10 * US  # (assumption)
    malloc_host: int = 100 * US  # pinning pages is expensive (assumption)
    free_host: int = 50 * US  # (assumption)
    memcpy_sync_setup: int = 10 * US  # fixed part of a blocking aclrtMemcpy (assumption)
    query: int = 1 * US  # stream/event query (assumption)
    graph_launch: int = 10 * US  # aclmdlRIExecuteAsync: one submission for the whole graph (assumption)
    capture_call: int = 2 * US  # aclmdlRICapture*/ExchangeMode/Execute/Destroy/DebugJsonPrint (assumption)
    model_load: int = 20 * MS  # aclmdlLoadFrom*: parsing and task building, before the weights' copy (assumption)
    model_unload: int = 1 * MS  # aclmdlUnload (assumption)
    model_execute: int = 10 * US  # aclmdlExecute(Async): one submission for the model's tasks (assumption)


@dataclass(frozen=True)
class Profile:
    """One simulated device type (and the server it sits in)."""

    name: str
    soc_name: str
    ai_cores: int  # AI Cores (= cube cores on A2)
    cube_cores: int
    vector_cores: int
    aicpu_cores: int
    memory_bytes: int  # usable device memory (get_mem_info total)
    l2_bytes: int
    npu_arch: int  # ACL_DEV_ATTR_NPU_ARCH value (RT-API 25-02)
    cube_clock_mhz: int
    hbm_bandwidth: float  # bytes/s, device memory
    h2d_pinned: float  # bytes/s, host link, pinned host memory
    d2h_pinned: float
    h2d_pageable: float  # bytes/s, pageable host memory (staged, synchronous)
    d2h_pageable: float
    dma_latency_ns: int  # fixed start-up of one DMA transfer
    kernel_start_ns: int  # device-side dispatch of one kernel
    core_flops: float  # flop/s of one AI core (fp16 cube peak)
    timer_ticks_per_ms: int  # event timestamp counter (RT-SRC task_base.hpp / event.cc)
    max_streams: int  # per device, default streams included (RT-API 06)
    max_events: int  # per device (RT-API 07)
    max_notifies: int  # per device (RT-API 08 aclrtCreateNotify constraints)
    stream_priority_supported: bool  # RT-API 25-02
    p2p_supported: bool
    run_mode: int  # 0 ACL_DEVICE (app on the board), 1 ACL_HOST
    default_device_count: int
    peer_link: str  # "hccs" full mesh, "pcie" switch, "none"
    peer_bandwidth: float  # bytes/s per direction of one link (HCCS: one device pair;
    # PCIe: one card's switch port), shared by the copies on it
    peer_latency_ns: int
    memory_kind: str = "HBM"  # "HBM" or "DDR": which aclrtMemAttr family answers
    shared_host_dma: bool = False  # True: host<->device copies of both directions share one DMA engine
    host_memcpy_bandwidth: float = 10e9  # bytes/s of a host-to-host memcpy (assumption)
    # Features only some chips have.  The checks read these flags, never the profile's name, so
    # a custom profile (``ASCEND_310P.with_(mem_pool_supported=True)``) decides for itself.
    huge1g_pages_supported: bool = False  # 1 GiB pages: ACL_MEM_MALLOC_HUGE1G_ONLY(_P2P) and the
    # *_HUGE1G aclrtMemAttr; A2/A3 only (RT-API 25-02 aclrtMemAttr)
    mem_pool_supported: bool = False  # stream-ordered pools, aclrtMemPool*: A2 only (RT-API 11-10)
    acl_graph_supported: bool = True  # ACL Graph capture, aclmdlRI*: not on Atlas 200I/500 A2 (RT-API 15)
    value_wait_supported: bool = False  # aclrtValueWrite/aclrtValueWait: A2/A3 only (RT-API 11-09)
    stream_abort_supported: bool = False  # aclrtStreamStop/Abort: A2/A3 only (docs 06_stream_management.md)
    ipc_supported: bool = True  # IPC memory and notifies: not on Atlas 200I/500 A2 (RT-API 11-07, 08)
    ipc_event_supported: bool = False  # ACL_EVENT_IPC, aclrtIpc*EventHandle: A2/A3/950PR only (RT-API 07;
    # RT-SRC config/910_B_93/dev_info_reg.cc:97 lists RT_FEATURE_IPC_EVENT)
    # Floating-point overflow and the random-number task (RT-SRC config/<chip>/dev_info_reg.cc: 910_B_93 for
    # the 910B, dc for the 310P, mini_v3 for the 310B)
    overflow_modes: tuple[int, ...] = (0,)  # supportOverflowMode: 0 saturation, 1 Inf/NaN
    default_overflow_mode: int = 0  # 1 where the chip has RT_FEATURE_OVERFLOW_MODE (runtime.cc Init)
    overflow_check_supported: bool = False  # RT_FEATURE_STREAM_ATTR_OVERFLOW_CHECK (aclrtSetStreamOverflowSwitch)
    stars_scheduler: bool = True  # isStars: aclrtGetStreamOverflowSwitch reads the stream's flag (else 1)
    random_num_supported: bool = False  # RT_FEATURE_TASK_RAND_GENERATOR (aclrtRandomNumAsync)
    host_costs: HostCosts = field(default_factory=HostCosts)
    sources: tuple[str, ...] = ()

    @property
    def timer_resolution_ns(self) -> float:
        return 1_000_000 / self.timer_ticks_per_ms

    def with_(self, **changes) -> "Profile":
        """A copy with some figures changed (for experiments)."""
        return replace(self, **changes)


ASCEND_910B = Profile(
    name="ascend910b",
    soc_name="Ascend910B2",
    ai_cores=24,
    cube_cores=24,
    vector_cores=48,
    aicpu_cores=4,  # INI Ascend910B2
    memory_bytes=62 * GiB,  # 64 GiB HBM (INI) less ~2 GiB system reserve (assumption)
    l2_bytes=192 * MiB,  # INI
    npu_arch=2201,  # RT-API 25-02
    cube_clock_mhz=1800,  # INI
    hbm_bandwidth=1.6e12,  # ~1.6 TB/s HBM2e (T-tables 57035021387)
    h2d_pinned=57e9,
    d2h_pinned=42e9,  # Atlas A2 pinned copies 56.5-58.3 / 42.0-42.7 GB/s (T-69578317965)
    h2d_pageable=14e9,
    d2h_pageable=10e9,  # assumption: staged through a bounce buffer, ~1/4 of pinned
    dma_latency_ns=2 * US,  # assumption
    kernel_start_ns=3 * US,  # assumption
    core_flops=1800e6 * 4096 * 2,  # 16x16x16 cube = 4096 MAC/cycle (INI) x 2 x clock = 14.7 TFLOPS
    timer_ticks_per_ms=50_000,  # 50 MHz counter, 20 ns (RT-SRC)
    max_streams=1984,
    max_events=65536,  # RT-API 06 / 07
    max_notifies=8192,  # RT-API 08: Atlas A2/A3
    stream_priority_supported=True,  # RT-API 25-02
    p2p_supported=True,
    run_mode=1,  # ACL_HOST: host + cards (A2 has no RC mode)
    default_device_count=8,  # Atlas 800 A2 server: 8 NPUs (T-CHIAO npu-smi topology)
    peer_link="hccs",
    peer_bandwidth=56e9,  # full-mesh HCCS, 56 GB/s per pair (T-CHIAO data sheet)
    peer_latency_ns=5 * US,  # assumption
    huge1g_pages_supported=True,  # RT-API 25-02 aclrtMemAttr: Atlas A2 training series
    mem_pool_supported=True,  # RT-API 11-10: A2, experimental
    acl_graph_supported=True,  # RT-API 15
    value_wait_supported=True,  # RT-API 11-09: A2 supported
    stream_abort_supported=True,  # docs 06_stream_management.md: aclrtStreamStop/Abort on A2/A3
    ipc_event_supported=True,  # RT-API 07 aclrtIpcGetEventHandle: Atlas A2 supported
    overflow_modes=(0, 1),  # RT-SRC config/910_B_93: saturation and Inf/NaN, Inf/NaN by default
    default_overflow_mode=1,
    overflow_check_supported=True,
    random_num_supported=True,  # RT-SRC config/910_B_93: RT_FEATURE_TASK_RAND_GENERATOR
    sources=(
        "INI Ascend910B2",
        "RT-API 06/07/25-02",
        "RT-SRC task_base.hpp",
        "T-TRITON #1675",
        "T-CHIAO npu-smi topo",
        "T-69578317965 pinned copy bandwidth",
    ),
)

ASCEND_310P = Profile(
    name="ascend310p",
    soc_name="Ascend310P3",
    ai_cores=8,
    cube_cores=8,
    vector_cores=7,
    aicpu_cores=16,  # INI Ascend310P3
    memory_bytes=21 * GiB,  # 24e9 B (INI) less system reserve (assumption)
    l2_bytes=16 * MiB,  # INI
    npu_arch=2002,  # RT-API 25-02
    cube_clock_mhz=1060,  # INI
    hbm_bandwidth=204.8e9,  # LPDDR4X, commonly quoted for Atlas 300I Pro (unconfirmed)
    h2d_pinned=24e9,
    d2h_pinned=22e9,  # PCIe Gen4 x16 card (T-Atlas 300I pages); efficiency assumed
    h2d_pageable=8e9,
    d2h_pageable=6e9,  # assumption
    dma_latency_ns=3 * US,  # assumption
    kernel_start_ns=4 * US,  # assumption
    core_flops=1060e6 * 4096 * 2,  # 8.7 TFLOPS per core, 69.5 for 8 (official card: 70)
    timer_ticks_per_ms=1_000_000,  # 1 ns nominal (RT-SRC default)
    max_streams=1024,
    max_events=1023,
    max_notifies=1024,  # RT-API 08: Atlas inference series
    stream_priority_supported=False,  # RT-API 25-02: not on 310P
    p2p_supported=True,
    run_mode=1,
    default_device_count=4,  # PCIe cards behind one switch (assumption: 4-card server)
    peer_link="pcie",
    peer_bandwidth=24e9,  # same PCIe switch, Gen4 x16 (assumption)
    peer_latency_ns=8 * US,  # assumption
    memory_kind="DDR",
    huge1g_pages_supported=False,  # RT-API 25-02 aclrtMemAttr: not on Atlas inference series
    mem_pool_supported=False,  # RT-API 11-10: A2 only
    acl_graph_supported=True,  # RT-API 15: Atlas inference series supported
    stars_scheduler=False,  # RT-SRC config/dc: isStars false; saturation only, no overflow switch, no random task
    sources=("INI Ascend310P3", "RT-API 06/07/25-02", "T-Atlas 300I pages"),
)

# The 310B numbers for copies are calibrated on ASYNC-ARTICLE's 310B measurement:
# 3 x 4 MiB (two inputs in, one result out) took 8.2 ms, i.e. ~1.53 GB/s per direction.
ASCEND_310B = Profile(
    name="ascend310b",
    soc_name="Ascend310B1",
    ai_cores=1,
    cube_cores=1,
    vector_cores=1,
    aicpu_cores=4,  # INI Ascend310B1
    memory_bytes=7 * GiB + 512 * MiB,  # 8 GB board; one npu-smi dump shows ~7.5 GB usable (T)
    l2_bytes=4 * MiB,  # INI
    npu_arch=3002,  # RT-API 25-02
    cube_clock_mhz=1224,  # INI
    hbm_bandwidth=51.2e9,  # LPDDR4X (assumption)
    h2d_pinned=1.535e9,
    d2h_pinned=1.535e9,  # ASYNC-ARTICLE: 12 MiB in 8.2 ms
    h2d_pageable=0.8e9,
    d2h_pageable=0.8e9,  # assumption
    dma_latency_ns=5 * US,  # assumption
    kernel_start_ns=5 * US,  # assumption
    core_flops=1224e6 * 4096 * 2,  # 10 TFLOPS fp16 for the one core
    timer_ticks_per_ms=48_000,  # ~20.8 ns (RT-SRC)
    max_streams=512,
    max_events=65536,
    max_notifies=2048,  # RT-API 08: Atlas 200I/500 A2
    stream_priority_supported=False,  # RT-API 25-02: not on 310B
    p2p_supported=False,  # pyACL device_can_access_peer page: not supported on 310B
    ipc_supported=False,  # RT-API 11-07 and 08 (aclrtIpcMem*, aclrtNotify*Key): not on 200I/500 A2
    run_mode=0,  # ACL_DEVICE: the program runs on the board's own CPU
    default_device_count=1,  # a single board
    peer_link="none",
    peer_bandwidth=0.0,
    peer_latency_ns=0,
    memory_kind="DDR",
    # host and NPU share the board's LPDDR; the article's table treats every copy as one serial
    # resource (8.5 ms = 8.2 ms of copies + what compute cannot hide), so copies in and out
    # share one engine here (assumption, calibrated on ASYNC-ARTICLE)
    shared_host_dma=True,
    huge1g_pages_supported=False,  # RT-API 25-02 aclrtMemAttr: not on Atlas 200I/500 A2
    mem_pool_supported=False,  # RT-API 11-10: A2 only
    acl_graph_supported=False,  # RT-API 15: Atlas 200I/500 A2 "not supported"
    host_costs=HostCosts(kernel_launch=15 * US, memcpy_async=8 * US),  # slower board CPU (assumption)
    sources=("INI Ascend310B1", "RT-API 25-02", "RT-SRC", "ASYNC-ARTICLE sync/async table"),
)

PROFILES = {p.name: p for p in (ASCEND_910B, ASCEND_310P, ASCEND_310B)}
ALIASES = {
    "910b": "ascend910b",
    "310p": "ascend310p",
    "310b": "ascend310b",
    "Ascend910B2": "ascend910b",
    "Ascend310P3": "ascend310p",
    "Ascend310B1": "ascend310b",
}


def get_profile(profile) -> Profile:
    """A Profile from a Profile, a profile name ("ascend910b") or a short alias ("910b")."""
    if isinstance(profile, Profile):
        return profile
    key = ALIASES.get(profile, profile) if type(profile) is str else None
    if key not in PROFILES:
        from ..core.errors import describe

        raise ValueError(f"unknown profile {describe(profile)}; choose one of {sorted(PROFILES)}")
    return PROFILES[key]

"""The kernel: the machinery every runtime call goes through, read in this order.

=====================  ==================================================================================
``errors.py``          the runtime's error codes by their C names; ``AclError`` and ``fail(code, message)``
``constants.py``       the runtime's enums and flags by their C names
``trace.py``           the append-only log: one record per state change, the single source of every view
``objects.py``         processes, contexts, streams, events, host threads, and who owns what
``tasks.py``           a device task: what a call asks for, and when it is ready to run
``engines.py``         what tasks compete for: the AI Core pool, one DMA engine per direction, peer links
``device_loop.py``     the device side: a discrete-event loop in integer ns, run only up to the host's horizon
``hazards.py``         the happens-before model (vector clocks): races found by the ordering rules
``allocator.py``       device and host memory: the allocator's rules, lazy backing, the host budget
``hooks.py``           the seam: every hook a feature can register, and when it fires
``host_turns.py``      deterministic host threads: the turn goes to the runnable thread with the smallest clock
``learner_code.py``    kernel bodies, callbacks and host functions the runtime runs; the machine's lock
``machine.py``         one simulated machine: devices, handles, ``submit``, ``block_until``, ``feature``
``current_machine.py`` which machine the calls go to (``current``, ``configure``), ``bound`` for a grader
``gate.py``            what every runtime call goes through: host cost, its record, ``refuse`` for failures
``python_threads.py``  Python's threads, pools and notebook cells in the turn; user code's waits give up
=====================  ==================================================================================

Each runtime area (streams, events, memory calls, kernels, callbacks, capture, pools ...) is a
module of ``features/``: it imports the kernel, and the kernel never imports it (a feature
plugs in through ``hooks.py`` and ``Machine.feature``; tests/project/test_import_graph.py checks the
direction).  The kernel's line budget is in CONTRIBUTING.md.
"""

"""The runtime's areas, one module each, built on the kernel (``sandbox/core``), never the reverse.

=======================  ===================================================================================
``devices.py``           init, SetDevice reference counts, default contexts, resets, device synchronize
``synchronize.py``       the one synchronize path (refusal hooks, wait, cost, after-sync hooks, device errors)
``streams.py``           stream create/destroy/synchronize/query, priority, stop/abort, state callbacks
``events.py``            event record, wait, query, elapsed time; Ex, IPC and EXTERNAL events
``memory_calls.py``      malloc/free, pinned memory, copies and 2-D copies, memsets; which engine a copy takes
``kernels.py``           ``@sandbox.kernel``: launches and the timing model
``host_work.py``         host-side work that takes virtual time (``sandbox.host_work``)
``callbacks.py``         host callbacks and host functions, the report threads that run them
``notifies.py``          notifies and value waits: tasks that wait for a flag or a memory word
``capture.py``           ACL Graph: capture into a model run instance, and its replay
``models.py``            offline models (stand-ins): a load's device memory, an execution's AI Core task
``pools.py``             stream-ordered memory pools
``peer.py``              peer access between devices and the links copies share
``vmm.py``               virtual memory management and shareable handles
``ipc.py``               memory and notifies shared between processes by key
``processes.py``         simulated processes sharing the devices; a process ends with its last thread
``faults.py``            injected faults, to practise recovery
``leaks.py``             leak reports at finalize
``task_exceptions.py``   the exception-info callback and its readers, a thread's last task, verbose errors
``device_resources.py``  core limits, the current default stream, device status and utilisation
``builtin_tasks.py``     the runtime's built-in tasks: aclrtReduceAsync, aclrtRandomNumAsync
``overflow.py``          floating-point overflow: saturation mode, a stream's switch, the overflow status
``sysparams.py``         system parameter options (aclrtSetSysParamOpt and its context forms)
``profiling.py``         aclprof*: configs, collections from start to stop, msproftx marks and ranges
``mstx.py``              mstx*: marks and ranges in domains while msproftx collects; msprof's command line
``subscription.py``      aclprofModelSubscribe: a record per operator of each execution, into a pipe
=======================  ===================================================================================
"""

"""Notebook 11 · the official samples, step by step: no programming exercise (the notebook walks
through the samples), a concept check on what they show."""

from __future__ import annotations

from sandbox.teach.concepts import Question, Quiz, register_quiz

register_quiz(
    Quiz(
        "11.concepts",
        "Concept check: what the official samples show",
        "概念检查：官方样例演示了什么",
        (
            Question(
                "In 4_custom_kernel_launch, what has happened when the launch `vector_add<<<...>>>` returns 0?",
                (
                    "the kernel ran and `out` holds the sum",
                    "the kernel is queued on the stream; nothing has run and `out` holds nothing yet",
                    "the kernel ran on the device, only the copy of `out` to the host is still to come",
                ),
                "b",
                (
                    "a launch does not wait for the kernel: the list of finished kernels was still empty",
                    "right: the host must synchronize before it reads the result",
                    "the kernel had not even started when the launch returned",
                ),
                "the cells under '1 · Quickstart: a custom kernel on a stream'",
                {
                    "text": "在 4_custom_kernel_launch 中，下发 `vector_add<<<...>>>` 返回 0 时，发生了什么？",
                    "choices": (
                        "核函数已经运行完，`out` 里是和",
                        "核函数已放入 Stream 的队列；还什么都没运行，`out` 里还没有结果",
                        "核函数已在 Device 上运行完，只差把 `out` 拷回 Host",
                    ),
                    "why": (
                        "下发不等待核函数：当时已完成的核函数列表还是空的",
                        "对：Host 读取结果之前必须先同步",
                        "下发返回时核函数甚至还没开始",
                    ),
                    "shown_by": "“1 · 快速入门：在 Stream 上下发自定义核函数”下的单元格",
                },
            ),
            Question(
                "After a failed aclrtMalloc the program calls aclrtPeekAtLastError, then aclrtGetLastError, then "
                "aclrtPeekAtLastError again. What does the last peek return?",
                (
                    "0: aclrtGetLastError read the error and cleared it",
                    "100000: a peek reads the failure, which stays until the next successful call",
                    "100000: only aclGetRecentErrMsg clears an error",
                ),
                "a",
                (
                    "right: peek keeps the error, get takes it away",
                    "the get in between cleared it: the second peek read 0",
                    "the message and the error code are kept apart; get clears the code",
                ),
                "the cell under '2 · Error handling'",
                {
                    "text": "一次 aclrtMalloc 失败后，程序依次调用 aclrtPeekAtLastError、aclrtGetLastError，再调用一次 "
                    "aclrtPeekAtLastError。最后一次 peek 返回什么？",
                    "choices": (
                        "0：aclrtGetLastError 读取错误后把它清掉了",
                        "100000：peek 读到的失败会一直保留，直到下一次成功的调用",
                        "100000：只有 aclGetRecentErrMsg 才会清除错误",
                    ),
                    "why": (
                        "对：peek 保留错误，get 把它拿走",
                        "中间那次 get 已经清掉了它：第二次 peek 读到 0",
                        "错误信息和错误码分开保存；get 清除的是错误码",
                    ),
                    "shown_by": "“2 · 错误处理”下的单元格",
                },
            ),
            Question(
                "On one stream set to ACL_STOP_ON_FAILURE, with x = 0: easy_op (x += 1), a kernel that faults, "
                "easy_op again. What is x after the synchronize?",
                (
                    "2: the failed kernel is skipped and the stream goes on",
                    "0: stop-on-failure undoes the tasks before the fault",
                    "1: the first easy_op ran, then the stream stopped",
                ),
                "c",
                (
                    "that is continue-on-failure, the default; under stop-on-failure the second easy_op never ran",
                    "nothing is undone: the first easy_op's result stays",
                    "right: the later tasks do not run, and the synchronize returns the fault's code",
                ),
                "the cell under '4 · Failure modes'",
                {
                    "text": "在一条设置了 ACL_STOP_ON_FAILURE 的 Stream 上，x = 0：先 easy_op（x += 1），再一个出错的核函数，"
                    "再 easy_op。同步之后 x 是多少？",
                    "choices": (
                        "2：出错的核函数被跳过，Stream 继续执行",
                        "0：遇错即停会撤销故障之前的任务",
                        "1：第一个 easy_op 执行了，然后 Stream 停了",
                    ),
                    "why": (
                        "那是默认的遇错继续；遇错即停时第二个 easy_op 从未执行",
                        "什么都不会撤销：第一个 easy_op 的结果还在",
                        "对：后续任务不再执行，同步返回故障的错误码",
                    ),
                    "shown_by": "“4 · 任务调度模式”下的单元格",
                },
            ),
            Question(
                "A copy from a buffer on device 0 to a buffer on device 1. Which peer-access enables does it need?",
                (
                    "both directions, as 2_device_P2P enables them before copying",
                    "one: from device 0 to device 1, enabled with device 0 current",
                    "none: a device-to-device aclrtMemcpy goes through host memory",
                ),
                "b",
                (
                    "the sample enables both, but one direction per enable is all a copy needs",
                    "right: aclrtDeviceEnablePeerAccess(1, 0) on device 0 was enough; with none the copy was refused",
                    "a peer copy goes over the link between the chips, and without access it is refused",
                ),
                "the cell under '8 · Two devices' that tries one enable, then none",
                {
                    "text": "从 Device 0 上的缓冲区拷贝到 Device 1 上的缓冲区，需要开启哪些 Device 间数据交互？",
                    "choices": (
                        "两个方向都要，和 2_device_P2P 拷贝前做的一样",
                        "一个：Device 0 到 Device 1，在当前 Device 为 0 时开启",
                        "都不用：Device 间的 aclrtMemcpy 经过 Host 内存中转",
                    ),
                    "why": (
                        "样例开了两个方向，但每次开启只开一个方向，拷贝只需要它那一个",
                        "对：在 Device 0 上调用 aclrtDeviceEnablePeerAccess(1, 0) 就够了；一个都不开，拷贝被拒绝",
                        "Device 间拷贝走芯片之间的链路，没有开启访问就会被拒绝",
                    ),
                    "shown_by": "“8 · 两个 Device”中先只开一个方向、再一个都不开的单元格",
                },
            ),
            Question(
                "0_simple_model captures a copy and a kernel between aclmdlRICaptureBegin and aclmdlRICaptureEnd. "
                "What does the output buffer hold right after the capture ends?",
                (
                    "what it held before: capturing records the tasks without running them",
                    "the kernel's result: a capture runs the tasks once while it records them",
                    "the result of the copy only: copies run during a capture, kernels do not",
                ),
                "a",
                (
                    "right: the output stayed zero until the first replay",
                    "nothing ran during the capture: the output was still zero",
                    "no captured task runs before a replay, copies included",
                ),
                "the cell under '6 · Capture and replay'",
                {
                    "text": "0_simple_model 在 aclmdlRICaptureBegin 与 aclmdlRICaptureEnd 之间捕获了一次拷贝和一个核函数。"
                    "捕获刚结束时，输出缓冲区里是什么？",
                    "choices": (
                        "原来的内容：捕获只记录任务，不执行它们",
                        "核函数的结果：捕获一边记录一边把任务执行一次",
                        "只有拷贝的结果：捕获期间拷贝会执行，核函数不会",
                    ),
                    "why": (
                        "对：直到第一次重放之前，输出一直是零",
                        "捕获期间什么都没执行：输出还是零",
                        "重放之前，被捕获的任务一个都不执行，拷贝也一样",
                    ),
                    "shown_by": "“6 · 捕获与重放”下的单元格",
                },
            ),
        ),
    )
)

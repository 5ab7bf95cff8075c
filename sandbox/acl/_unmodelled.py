"""Calls of the official samples that the sandbox does not model: each refuses in one clear way.

A learner porting a sample (hicann/runtime ``example/``) line by line finds every C call under
its pyACL name (``aclrtCreateLabel`` -> ``acl.rt.create_label``, ``aclmdlRIBuildBegin`` ->
``acl.mdl.ri_build_begin``, any other ``aclXxx`` -> ``acl.xxx``).  One the sandbox does not model
fails with 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT and a recent-error message naming the call
and why, changes nothing, and returns the refusal in pyACL's shape: ``(None, 207000)`` for a call
that hands back a value (its C name says Create/Get/Query/Malloc/...; 207000 alone otherwise).
The names are the calls of the official samples that the facade lacks (measured against the
samples of the ``hicann/runtime`` snapshot that examples/README.md cites); a name the facade
declares itself is left alone, so a call modelled later replaces its entry here.
"""

from __future__ import annotations

import re

from ..core.errors import ACL_ERROR_RT_FEATURE_NOT_SUPPORT, fail
from ._declare import call

# why, and the C names it holds
NOT_MODELLED: dict[str, tuple[str, ...]] = {
    (
        "aclDataBuffer belongs to the operator and model interfaces (aclnn, offline models), which the sandbox "
        "does not have; pass device pointers from aclrtMalloc"
    ): (
        "aclCreateDataBuffer",
        "aclDestroyDataBuffer",
        "aclGetDataBufferAddr",
    ),
    (
        "the operator library (aclnn: aclnnAdd, aclCreateTensor, ...) is not the runtime, and the sandbox has "
        "none; write the computation as a @sandbox.kernel function"
    ): (
        "aclCreateScalar",
        "aclCreateTensor",
        "aclDestroyScalar",
        "aclDestroyTensor",
        "aclnnAdd",
        "aclnnAddGetWorkspaceSize",
        "aclnnMul",
        "aclnnMulGetWorkspaceSize",
    ),
    ("the sandbox has no float16 helpers; numpy.float16 converts on the host"): (
        "aclFloat16ToFloat",
        "aclFloatToFloat16",
    ),
    ("operator and model dumps (adump) are not modelled"): (
        "acldumpGetExceptionInfoPath",
        "acldumpGetPath",
        "acldumpRegCallback",
        "acldumpSaveExceptionInfo",
        "acldumpUnregCallback",
        "aclmdlFinalizeDump",
        "aclmdlInitDump",
        "aclmdlSetDump",
        "aclopStartDumpArgs",
        "aclopStopDumpArgs",
    ),
    ("offline .om models are not modelled; a captured model run instance replays with aclmdlRIExecuteAsync"): (
        "aclmdlExecute",
    ),
    ("conditional sub-graphs chosen on the device (condition handles, aclmdlRIAddCondTask) are not modelled"): (
        "aclmdlRIAddCondTask",
        "aclmdlRICaptureToModelRIBegin",
        "aclmdlRICondHandleCreate",
        "aclmdlRICondHandleGetCondPtr",
    ),
    (
        "built models (aclmdlRIBuildBegin, aclmdlRIBindStream, aclmdlRIEndTask) and the device-side control flow "
        "they hold (labels, stream activation and switch) are not modelled; capture a graph with "
        "aclmdlRICaptureBegin/End instead"
    ): (
        "aclmdlRIBindStream",
        "aclmdlRIBuildBegin",
        "aclmdlRIBuildEnd",
        "aclmdlRIEndTask",
        "aclmdlRIUnbindStream",
        "aclrtActiveStream",
        "aclrtCreateLabel",
        "aclrtCreateLabelList",
        "aclrtDestroyLabel",
        "aclrtDestroyLabelList",
        "aclrtSetLabel",
        "aclrtSwitchLabelByIndex",
        "aclrtSwitchStream",
    ),
    (
        "updating captured tasks in place (task groups, aclmdlRICaptureTaskUpdate*) is not modelled: captured "
        "tasks keep the arguments they were captured with; capture again"
    ): (
        "aclmdlRICaptureTaskGrpBegin",
        "aclmdlRICaptureTaskGrpEnd",
        "aclmdlRICaptureTaskUpdateBegin",
        "aclmdlRICaptureTaskUpdateEnd",
    ),
    (
        "profiling (msprof, msproftx) is not modelled; the sandbox's own trace is its profiler (sandbox.trace() "
        "and the timeline views)"
    ): (
        "aclprofCreateConfig",
        "aclprofCreateStamp",
        "aclprofCreateStepInfo",
        "aclprofCreateSubscribeConfig",
        "aclprofDestroyConfig",
        "aclprofDestroyStamp",
        "aclprofDestroyStepInfo",
        "aclprofDestroySubscribeConfig",
        "aclprofFinalize",
        "aclprofGetModelId",
        "aclprofGetOpDescSize",
        "aclprofGetOpDuration",
        "aclprofGetOpEnd",
        "aclprofGetOpName",
        "aclprofGetOpNameLen",
        "aclprofGetOpNum",
        "aclprofGetOpStart",
        "aclprofGetOpType",
        "aclprofGetOpTypeLen",
        "aclprofGetStepTimestamp",
        "aclprofInit",
        "aclprofMark",
        "aclprofModelSubscribe",
        "aclprofModelUnSubscribe",
        "aclprofPop",
        "aclprofPush",
        "aclprofRangeStart",
        "aclprofRangeStop",
        "aclprofSetConfig",
        "aclprofSetStampTraceMessage",
        "aclprofStart",
        "aclprofStop",
    ),
    (
        "the sandbox's kernels are Python functions (@sandbox.kernel): there is no device binary to load, "
        "argument block to build or function handle to read"
    ): (
        "aclrtBinaryGetFunction",
        "aclrtBinaryLoadFromFile",
        "aclrtBinaryUnLoad",
        "aclrtGetArgsFromExceptionInfo",
        "aclrtGetFuncHandleFromExceptionInfo",
        "aclrtKernelArgsAppend",
        "aclrtKernelArgsAppendPlaceHolder",
        "aclrtKernelArgsFinalize",
        "aclrtKernelArgsGetPlaceHolderBuffer",
        "aclrtKernelArgsInit",
        "aclrtLaunchKernelWithConfig",
    ),
    (
        "notifies (aclrtCreateNotify, aclrtRecordNotify, aclrtWaitAndResetNotify) are not modelled; order streams "
        "with events"
    ): (
        "aclrtCreateNotify",
        "aclrtDestroyNotify",
        "aclrtRecordNotify",
        "aclrtWaitAndResetNotify",
    ),
    (
        "the V2 shareable handles (ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, across AI servers) are not modelled; within one "
        "machine use aclrtMemExportToShareableHandle, aclrtMemSetPidToShareableHandle and "
        "aclrtMemImportFromShareableHandle"
    ): (
        "aclrtMemExportToShareableHandleV2",
        "aclrtMemImportFromShareableHandleV2",
    ),
    ("zero-copy host registration and managed (unified) memory are not modelled; copy with aclrtMemcpy"): (
        "aclrtHostGetDevicePointer",
        "aclrtHostRegisterV2",
        "aclrtHostUnregister",
        "aclrtMemAllocManaged",
    ),
    ("aclrtValueWrite/aclrtValueWait on a device word are not modelled; order streams with events"): (
        "aclrtValueWait",
        "aclrtValueWrite",
    ),
    ("TDT channels and queues are the host-to-AI-CPU data service; the sandbox models no AI CPU queues"): (
        "acltdtAddDataItem",
        "acltdtAddQueueRoute",
        "acltdtBindQueueRoutes",
        "acltdtCleanChannel",
        "acltdtCreateChannelWithCapacity",
        "acltdtCreateDataItem",
        "acltdtCreateDataset",
        "acltdtCreateQueue",
        "acltdtCreateQueueAttr",
        "acltdtCreateQueueRoute",
        "acltdtCreateQueueRouteList",
        "acltdtCreateQueueRouteQueryInfo",
        "acltdtDestroyChannel",
        "acltdtDestroyDataItem",
        "acltdtDestroyDataset",
        "acltdtDestroyQueue",
        "acltdtDestroyQueueAttr",
        "acltdtDestroyQueueRoute",
        "acltdtDestroyQueueRouteList",
        "acltdtDestroyQueueRouteQueryInfo",
        "acltdtGetDataAddrFromItem",
        "acltdtGetDataItem",
        "acltdtGetDataSizeFromItem",
        "acltdtGetDataTypeFromItem",
        "acltdtGetDatasetName",
        "acltdtGetDatasetSize",
        "acltdtGetDimNumFromItem",
        "acltdtGetDimsFromItem",
        "acltdtGetQueueAttr",
        "acltdtGetQueueRoute",
        "acltdtGetQueueRouteNum",
        "acltdtGetQueueRouteParam",
        "acltdtGetSliceInfoFromItem",
        "acltdtGetTensorTypeFromItem",
        "acltdtQueryChannelSize",
        "acltdtQueryQueueRoutes",
        "acltdtReceiveTensor",
        "acltdtSendTensor",
        "acltdtSetQueueAttr",
        "acltdtSetQueueRouteQueryInfo",
        "acltdtStopChannel",
        "acltdtUnbindQueueRoutes",
    ),
}
_VALUE = re.compile(
    r"^(Create|Get|Query|Malloc|Alloc|Reserve|Import|Export|Load|Open|Check|Float|CondHandle|"
    r"DeviceGet|HostGet|KernelArgsInit|MemGet|MemExport|MemImport|NotifyGet|NotifyImport|IpcMem(Get|Import)|"
    r"IpcGet|IpcOpen|BinaryLoad|BinaryGet|Mem(Alloc))"
)


def py_name(c_name: str) -> tuple[str, str]:
    """(module, name) of a C call by pyACL's rule: aclrt -> acl.rt, aclmdl -> acl.mdl, else acl."""
    prefix, module = next(
        (p, mod) for p, mod in (("aclrt", "rt"), ("aclmdl", "mdl"), ("acl", "")) if c_name.startswith(p)
    )
    rest = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", c_name[len(prefix) :])
    return module, re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", rest).lower()


def _returns_value(c_name: str) -> bool:
    rest = c_name[5:] if c_name.startswith("aclrt") else c_name[6:] if c_name.startswith("aclmdl") else c_name[3:]
    return bool(_VALUE.match(re.sub(r"^(RI|nn|tdt|prof|sys|dump|op)", "", rest)))


def _refusal(c_name: str, why: str):
    defaults = (None,) if _returns_value(c_name) else ()
    message = f"the sandbox does not model {c_name}: {why}"

    def refuse(m, th):
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, message)

    def not_modelled(*args, **kwargs):
        return call(c_name, refuse, cost="default", defaults=defaults, needs_init=False)

    not_modelled.__name__ = py_name(c_name)[1]
    not_modelled.__doc__ = f"{c_name}: not modelled ({why}); refuses with 207000."
    return not_modelled


def install(modules: dict) -> None:
    """Add a refusing call for each name the facade does not declare (``modules``: "" / "rt" / "mdl")."""
    for why, names in NOT_MODELLED.items():
        for c_name in names:
            module, name = py_name(c_name)
            if not hasattr(modules[module], name):
                setattr(modules[module], name, _refusal(c_name, why))

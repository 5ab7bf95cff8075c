"""What the sandbox does not model: every such pyACL function, and the official C samples' calls
pyACL lacks, refuse in one clear way.

**The binding's functions** (``_binding.FACTS``): each one the facade does not declare is made
here from its row, under its pyACL name and module (``acl.mdl.load_from_file``,
``acl.media.vpc_resize_async``, ``acl.op.create_attr`` ...).  Called, it parses its arguments as the
binding does (the same count, no keywords: else TypeError, as ``PyArg_ParseTuple``), then fails
with 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT and a recent-error message naming its C call and
why, changes nothing, and returns the failure in the binding's shape (``(0, 207000)``,
``(None, 207000)``, a bare 0 handle, ...: ``Fact.failure``).

**The C samples' calls pyACL lacks** (``NOT_MODELLED`` names the samples' C calls the facade
does not model; a call the binding wraps takes the binding's name above, with the reason given
here): a learner porting a C sample line by line finds each under the naming rule
(``aclrtCreateLabel`` -> ``acl.rt.create_label``, ``aclmdlRIBuildBegin`` -> ``acl.mdl.ri_build_begin``,
any other ``aclXxx`` -> ``acl.xxx``), refusing the same way; they are names beyond pyACL
(``beyond_pyacl.py``) and return ``(None, 207000)`` for a call that hands back a value (its C name
says Create/Get/Query/Malloc/...), 207000 alone otherwise.
"""

from __future__ import annotations

import re
import sys
import types

from ..core.errors import ACL_ERROR_RT_FEATURE_NOT_SUPPORT, fail
from . import _binding
from ._declare import call

# why each binding module is not modelled, unless its C call has a reason of its own below
WHY_MODULE: dict[str, str] = {
    "": (
        "aclTensorDesc and the other descriptors belong to the operator and model interfaces (aclnn, acl.op, "
        "offline models), which the sandbox does not have; pass device pointers from acl.rt.malloc"
    ),
    "rt": "this runtime call is not modelled by the sandbox",
    "mdl": (
        "the sandbox runs stand-in models (sandbox.models: load, describe, datasets, execute, dynamic batch "
        "and image size) but not this part of the model interface (AIPP, dynamic dims, dumps, op "
        "descriptions, configuration handles, bundles, queues)"
    ),
    "media": (
        "the media processing of DVPP (VPC resize and crop, JPEG and PNG codecs, video encode and decode) is "
        "not modelled; acl.media.dvpp_malloc and dvpp_free are"
    ),
    "himpi": "the hi_mpi media interfaces (VPC, JPEG, PNG, video codecs) are not modelled",
    "op": (
        "single operators (acl.op: compiled operator files, attributes, operator handles) are not modelled; "
        "write the computation as a @sandbox.kernel function"
    ),
    "blas": "the acl.blas matrix operators (GEMV, GEMM) are not modelled; write them as a @sandbox.kernel function",
    "fv": "feature-vector retrieval (acl.fv) runs on the AI CPU, which the sandbox does not model",
    "util": "this acl.util helper is not modelled",
    "prof": "this profiling call is not modelled",
}

# the C calls the facade does not model, by the reason: the official C samples' calls, and the
# binding's calls with a reason of their own; those the binding wraps refuse under its names
NOT_MODELLED: dict[str, tuple[str, ...]] = {
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
        "the sandbox's kernels are Python functions (@sandbox.kernel): there is no device binary to load, "
        "argument block to build or function handle to read"
    ): (
        "aclrtBinaryGetFunction",
        "aclrtBinaryLoad",
        "aclrtBinaryLoadFromData",
        "aclrtBinaryLoadFromFile",
        "aclrtBinaryUnLoad",
        "aclrtCreateBinary",
        "aclrtDestroyBinary",
        "aclrtGetFunctionAddr",
        "aclrtGetFunctionName",
        "aclrtLaunchKernel",
        "aclrtRegisterCpuFunc",
        "aclrtKernelArgsGetHandleMemSize",
        "aclrtKernelArgsGetMemSize",
        "aclrtKernelArgsInitByUserMem",
        "aclrtKernelArgsParaUpdate",
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
        "the V2 shareable handles (ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, across AI servers) are not modelled; within one "
        "machine use aclrtMemExportToShareableHandle, aclrtMemSetPidToShareableHandle and "
        "aclrtMemImportFromShareableHandle"
    ): (
        "aclrtMemExportToShareableHandleV2",
        "aclrtMemImportFromShareableHandleV2",
    ),
    ("aclrtValueWrite/aclrtValueWait on a device word are not modelled; order streams with events"): (
        "aclrtValueWait",
        "aclrtValueWrite",
    ),
    (
        "operator execution and wait timeouts are watchdog settings of the AI Core and AI CPU, counted in the "
        "chip's own intervals (aclrtGetOpTimeOutInterval); the sandbox's kernels take the time their "
        "@sandbox.kernel declares, and no watchdog runs"
    ): (
        "aclrtGetOpExecuteTimeout",
        "aclrtGetOpTimeOutInterval",
        "aclrtSetOpExecuteTimeOut",
        "aclrtSetOpExecuteTimeOutV2",
        "aclrtSetOpWaitTimeout",
    ),
    (
        "stream attributes (aclrtSetStreamAttribute) and per-stream core limits are not modelled; set a "
        "stream's failure mode with aclrtSetStreamFailureMode, its overflow check with "
        "aclrtSetStreamOverflowSwitch, a device's core limits with aclrtSetDeviceResLimit"
    ): (
        "aclrtGetStreamAttribute",
        "aclrtGetStreamResLimit",
        "aclrtResetStreamResLimit",
        "aclrtSetStreamAttribute",
        "aclrtSetStreamResLimit",
        "aclrtUnuseStreamResInCurrentThread",
        "aclrtUseStreamResInCurrentThread",
    ),
    (
        "allocation configurations (attribute lists for the driver) are not modelled; allocate with "
        "aclrtMalloc or aclrtMallocHost"
    ): (
        "aclrtMallocForTaskScheduler",
        "aclrtMallocHostWithCfg",
        "aclrtMallocWithCfg",
    ),
    ("memory-copy descriptors are not modelled; copy with aclrtMemcpyAsync"): (
        "aclrtGetMemcpyDescSize",
        "aclrtMemcpyAsyncWithDesc",
        "aclrtSetMemcpyDesc",
    ),
    (
        "cache maintenance tasks (prefetch, invalidate, write back) are not modelled: the sandbox models no device caches"
    ): ("aclrtCmoAsync",),
    (
        "aborting every task of a device is not modelled; aclrtStreamAbort aborts a stream's tasks, "
        "aclrtResetDeviceForce releases a device"
    ): ("aclrtDeviceTaskAbort",),
    ("choosing the task scheduler of a device is not modelled: each simulated device has one"): ("aclrtSetTsDevice",),
    (
        "notify ids and batch resets are not modelled; record and wait on a notify with aclrtRecordNotify and "
        "aclrtWaitAndResetNotify"
    ): (
        "aclrtGetNotifyId",
        "aclrtNotifyBatchReset",
    ),
    ("device groups (AI Cores split between groups of a device) are not modelled"): (
        "aclrtCreateGroupInfo",
        "aclrtDestroyGroupInfo",
        "aclrtGetAllGroupInfo",
        "aclrtGetGroupCount",
        "aclrtGetGroupInfoDetail",
        "aclrtSetGroup",
    ),
    (
        "uncorrectable memory errors are hardware faults the sandbox does not model; practise recovery with "
        "sandbox.inject_fault"
    ): (
        "aclrtGetMemUceInfo",
        "aclrtMemUceRepair",
    ),
    (
        "aclsysGetCANNVersion reads the CANN packages installed on a machine, and the sandbox has none; "
        'acl.get_version_str("runtime") gives the version of the runtime it follows'
    ): ("aclsysGetCANNVersion",),
    ("the reference count of aclInit calls is not modelled; aclFinalize ends the process's use of ACL"): (
        "aclFinalizeReference",
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
WHY: dict[str, str] = {c_name: why for why, names in NOT_MODELLED.items() for c_name in names}


def py_name(c_name: str) -> tuple[str, str]:
    """(module, name) of a C call by pyACL's rule: aclrt -> acl.rt, aclmdl -> acl.mdl, aclprof ->
    acl.prof, else acl."""
    prefix, module = next(
        (p, mod)
        for p, mod in (("aclrt", "rt"), ("aclmdl", "mdl"), ("aclprof", "prof"), ("acl", ""))
        if c_name.startswith(p)
    )
    rest = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", c_name[len(prefix) :])
    return module, re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", rest).lower()


def where(c_name: str) -> tuple[str, str]:
    """(module, name) a C call is found under: the binding's function wrapping it, else the rule's."""
    fact = _binding.wrapping(c_name)
    return (fact.module, fact.name) if fact is not None else py_name(c_name)


def _returns_value(c_name: str) -> bool:
    rest = c_name[5:] if c_name.startswith("aclrt") else c_name[6:] if c_name.startswith("aclmdl") else c_name[3:]
    return bool(_VALUE.match(re.sub(r"^(RI|nn|tdt|prof|sys|dump|op)", "", rest)))


def _refuse(message: str):
    def refuse(m, th):
        fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, message)

    return refuse


def binding_refusal(fact: _binding.Fact):
    """A pyACL function the sandbox does not model: the binding's arguments, its failure shape."""
    why = WHY.get(fact.c_name) or WHY_MODULE[fact.module]
    refuse = _refuse(f"the sandbox does not model {fact.c_name}: {why}")
    c_name, check, failure = fact.c_name, _binding.check_arguments, fact.failure

    def not_modelled(*args, **kwargs):
        check(fact, args, kwargs)
        return failure(call(c_name, refuse, cost="default"))

    not_modelled.__name__ = not_modelled.__qualname__ = fact.name
    not_modelled.__doc__ = f"{fact.c_name}: not modelled ({why}); refuses with 207000 in pyACL's shape."
    return not_modelled


def _sample_refusal(c_name: str, why: str):
    defaults = (None,) if _returns_value(c_name) else ()
    refuse = _refuse(f"the sandbox does not model {c_name}: {why}")

    def not_modelled(*args, **kwargs):
        return call(c_name, refuse, cost="default", defaults=defaults)

    not_modelled.__name__ = not_modelled.__qualname__ = py_name(c_name)[1]
    not_modelled.__doc__ = f"{c_name}: not in pyACL and not modelled ({why}); refuses with 207000."
    return not_modelled


def submodule(parent: str, name: str, doc: str) -> types.ModuleType:
    """A submodule of the facade with no modelled call (acl.op, acl.prof, ...), importable by name."""
    module = types.ModuleType(f"{parent}.{name}", doc)
    sys.modules[module.__name__] = module
    return module


def install(modules: dict) -> None:
    """Add a refusing call for each binding function and sample call the facade does not declare
    (``modules``: "" / "rt" / "mdl" / ... -> the facade's module)."""
    for fact in _binding.FACTS.values():
        if not hasattr(modules[fact.module], fact.name):
            setattr(modules[fact.module], fact.name, binding_refusal(fact))
    for why, names in NOT_MODELLED.items():
        for c_name in names:
            if _binding.wrapping(c_name) is not None:
                continue  # refused (or modelled) under the binding's own name
            module, name = py_name(c_name)
            if not hasattr(modules[module], name):
                setattr(modules[module], name, _sample_refusal(c_name, why))

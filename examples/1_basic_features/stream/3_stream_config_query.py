"""Port of example/1_basic_features/stream/3_stream_config_query (hicann/runtime).

A stream config handle gets a flag (0) and a priority (0); aclrtCreateStreamV2 makes a stream from
it; its id, flags and priority are read back.  The C program looks the four config calls up with
dlsym and skips when the runtime library does not export them; here they are looked up on acl.rt
the same way.  It passes sizeof(uint32_t), 4, as the flag's value size: the sandbox takes 4 or
8 for the flag (see sandbox/acl/_stream_config.py for why).  The README's last line
("[SUCCESS] ... executed successfully.") is printed by the sample's run script, not by the program.
"""

import sys

from sandbox import acl

DEVICE_ID = 0
STREAM_FLAGS = 0
STREAM_PRIORITY = 0
SIZEOF_UINT32 = 4


def info(text):
    print(f"[INFO]  {text}")


def check_acl(ret, expr):
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {expr} returned error code {ret}", file=sys.stderr)
        return -1
    return 0


def load_stream_config_api():
    names = ("create_stream_config_handle", "destroy_stream_config_handle", "set_stream_config_opt", "create_stream_v2")
    api = {}
    for name in names:
        api[name] = getattr(acl.rt, name, None)
        if api[name] is None:
            print(f"[WARN]  Symbol {name} is not exported by the current Runtime library.")
    return api if all(api.values()) else None


def set_stream_config_options(api, config_handle):
    ret = api["set_stream_config_opt"](config_handle, acl.ACL_RT_STREAM_FLAG, STREAM_FLAGS, SIZEOF_UINT32)
    if check_acl(ret, "aclrtSetStreamConfigOpt(ACL_RT_STREAM_FLAG)") != 0:
        return -1
    ret = api["set_stream_config_opt"](config_handle, acl.ACL_RT_STREAM_PRIORITY, STREAM_PRIORITY, SIZEOF_UINT32)
    if check_acl(ret, "aclrtSetStreamConfigOpt(ACL_RT_STREAM_PRIORITY)") != 0:
        return -1
    info(f"Set stream config flags={STREAM_FLAGS} priority={STREAM_PRIORITY}")
    return 0


def query_stream_info(stream):
    stream_id, ret = acl.rt.stream_get_id(stream)
    if check_acl(ret, "aclrtStreamGetId") != 0:
        return -1
    info(f"Stream id: {stream_id}")
    flags, ret = acl.rt.stream_get_flags(stream)
    if check_acl(ret, "aclrtStreamGetFlags") != 0:
        return -1
    info(f"Stream flags: {flags}")
    priority, ret = acl.rt.stream_get_priority(stream)
    if check_acl(ret, "aclrtStreamGetPriority") != 0:
        return -1
    info(f"Stream priority: {priority}")
    return 0


def run_stream_config_query_sample():
    api = load_stream_config_api()
    if api is None:
        info(
            "[SKIP] Stream config query sample skipped because the current Runtime library does not export all "
            "stream config APIs."
        )
        return 0
    config_handle, ret = api["create_stream_config_handle"]()
    if ret != acl.ACL_SUCCESS or not config_handle:
        info("[SKIP] Stream config query sample skipped because aclrtCreateStreamConfigHandle returned nullptr.")
        return 0
    stream = None
    try:  # the C sample's guards destroy what is left on the way out
        info("Create stream config handle successfully")
        if set_stream_config_options(api, config_handle) != 0:
            return -1
        stream, ret = api["create_stream_v2"](config_handle)
        if check_acl(ret, "aclrtCreateStreamV2") != 0:
            return -1
        info("Create stream with config successfully")
        if query_stream_info(stream) != 0:
            return -1
        if check_acl(acl.rt.synchronize_stream(stream), "aclrtSynchronizeStream") != 0:
            return -1
        ret, stream = acl.rt.destroy_stream(stream), None
        if check_acl(ret, "aclrtDestroyStream") != 0:
            return -1
        ret, config_handle = api["destroy_stream_config_handle"](config_handle), None
        if check_acl(ret, "aclrtDestroyStreamConfigHandle") != 0:
            return -1
        info("[SUCCESS] Stream config query sample completed successfully")
        return 0
    finally:
        if stream is not None:
            acl.rt.destroy_stream(stream)
        if config_handle is not None:
            api["destroy_stream_config_handle"](config_handle)


def main():
    if check_acl(acl.init(), "aclInit") != 0:
        return -1
    if check_acl(acl.rt.set_device(DEVICE_ID), "aclrtSetDevice") != 0:
        acl.finalize()
        return -1
    ret = run_stream_config_query_sample()
    acl.rt.reset_device_force(DEVICE_ID)
    acl.finalize()
    return ret


if __name__ == "__main__":
    sys.exit(main())

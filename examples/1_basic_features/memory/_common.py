"""The samples' utils.h: INFO_LOG, ERROR_LOG and CHECK_ERROR."""

import sys

from sandbox import acl


def info(text):
    print(f"[INFO]  {text}")


def check(ret, what):
    # CHECK_ERROR: name the call and its code, then stop
    if ret != acl.ACL_SUCCESS:
        print(f"[ERROR]  Operation failed: {what} returned error code {ret}")
        sys.exit(1)

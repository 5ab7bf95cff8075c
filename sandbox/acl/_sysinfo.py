"""Host-side information calls: half-precision conversions and package versions.

**aclFloatToFloat16 / aclFloat16ToFloat** (``include/external/acl/acl_base_rt.h``; the rules of
``src/acl/aclrt_impl/types/fp16_impl.cpp``, FloatToFp16 and Fp16ToFloat).  An aclFloat16 is the
16 bits of an IEEE binary16 value, here a Python int in [0, 0xFFFF].

* float -> float16: the argument is first a C ``float`` (a Python float is rounded to float32,
  as a C caller's double would be), then rounded to nearest, ties to even, as numpy's float16
  does.  Unlike IEEE (and numpy), the runtime **saturates**: a value too large for binary16,
  infinity and NaN all become the largest finite value of their sign, 65504.0 (0x7BFF) or
  -65504.0 (0xFBFF); it never makes an infinity or a NaN.  Tiny values become subnormals or a
  zero of their sign, as in IEEE.
* float16 -> float: exact for every finite value (each is a float32), but the runtime keeps no
  infinity or NaN either: it reads exponent 31 as an ordinary exponent, so 0x7C00 (+inf) gives
  65536.0, 0xFC00 gives -65536.0 and 0x7E00 (a NaN) gives 98304.0.  The result is a float32
  value, returned as a Python float.

Neither C function can fail.  A Python argument of the wrong kind (not a real number; not an
int in [0, 0xFFFF]) is refused as the facade refuses any wrong type: 100000, with a message
for ``acl.get_recent_err_msg()``, and the value 0 (0.0) returned.  Both work before aclInit.

**aclsysGetVersionStr / aclsysGetVersionNum** (``acl_rt.h``; ``src/acl/aclrt_impl/acl.cpp``)
read the ``version.info`` file of an installed CANN package.  The sandbox installs no package:
it models the runtime whose sources its codes follow.  So the one package it knows is
``"runtime"``, and it answers with the version those sources declare for it
(``version.cmake``: npu-runtime 9.1.0; ``cmake/gen_version_headers.cmake`` maps "runtime" to
it), which :data:`RUNTIME_SOURCES_VERSION` names as such.  Any other package name ("driver",
"firmware", "opp", ...) fails as the real call does when no version file is found:
ACL_ERROR_INVALID_FILE (100003); a null name 100000.  The number is computed by the rule of
acl.cpp's CalculateVersionNum: major * 10,000,000 + minor * 100,000 + patch * 1,000 (9.1.0 ->
90100000).  The Python names follow pyACL's naming rule (``acl.get_version_str``); no
pyACL page for them was found.
"""

from __future__ import annotations

import math
import numbers
import struct
from typing import TYPE_CHECKING, cast

from ..core.errors import ACL_ERROR_INVALID_FILE, ACL_ERROR_INVALID_PARAM, describe, fail
from ._declare import Kind, api, helper

RUNTIME_SOURCES_VERSION = "9.1.0"  # version.cmake of the runtime sources the sandbox follows (snapshot 681ef76)
PACKAGES = {"runtime": RUNTIME_SOURCES_VERSION}
ACL_PKG_VERSION_MAX_SIZE = 128  # acl_rt.h: the size of the C caller's buffer

_WEIGHT_MAJOR, _WEIGHT_MINOR, _WEIGHT_PATCH = 10_000_000, 100_000, 1_000  # acl.cpp kWeight*


def _real(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be a real number (a C float), got {describe(value)}")
    try:
        return float(value)
    except OverflowError:  # an int beyond any double: as far out of float16's range as infinity
        return math.inf if cast(int, value) > 0 else -math.inf  # only ints overflow float()


def _half_bits(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) <= 0xFFFF:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be an aclFloat16: an int in [0, 0xFFFF], got {describe(value)}")
    return int(value)


def _package(value, what: str) -> str:
    if value is None:
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must not be null")
    if not isinstance(value, str):
        fail(ACL_ERROR_INVALID_PARAM, f"{what} must be a package name (a str), got {describe(value)}")
    return value


if TYPE_CHECKING:  # to a type checker, a kind is the type the body gets
    real = float
    half = int
    package = str
else:
    real = Kind(_real)
    half = Kind(_half_bits)
    package = Kind(_package)


def _float32_bits(value: float) -> int:
    """The bits of the C float a double becomes (round to nearest; out of range -> infinity)."""
    try:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:  # struct refuses finite doubles beyond float32's range: C gives infinity
        return 0x7F800000 | (0x80000000 if value < 0 else 0)


def float_bits_to_half(bits: int) -> int:
    """fp16_impl.cpp's FloatToFp16 on the 32 bits of a float: round to nearest even, saturate."""
    sign = (bits >> 31) & 1
    exp = (bits >> 23) & 0xFF
    man = bits & 0x7FFFFF
    if exp > 142:  # 127 + 15: too large, infinity or NaN -> the largest finite half of that sign
        return (sign << 15) | 0x7BFF
    if exp <= 112:  # 127 - 15: a subnormal half or a zero
        if exp >= 103:
            wide = (man | 0x800000) << (exp - 103)
            half_man = (wide >> 23) + _round_up(wide, 23)
        else:
            half_man = 1 if exp == 102 and man > 0 else 0
        half_exp = 0
    else:
        half_exp = exp - 112
        half_man = (man >> 13) + _round_up(man, 13)
        if half_man & 0x400:
            half_exp += 1
    if half_exp >= 31:  # rounding carried past the largest exponent: saturate
        half_exp, half_man = 30, 0x3FF
    elif half_exp == 0 and half_man == 0x400:  # the largest subnormal rounded up to the smallest normal
        half_exp, half_man = 1, 0
    return (sign << 15) | (half_exp << 10) | (half_man & 0x3FF)


def _round_up(man: int, dropped: int) -> int:
    """1 when dropping the low ``dropped`` bits rounds up (nearest, ties to even)."""
    last = (man >> dropped) & 1
    high = (man >> (dropped - 1)) & 1
    rest = man & ((1 << (dropped - 1)) - 1)
    return 1 if high and (rest or last) else 0


def half_to_float(bits: int) -> float:
    """fp16_impl.cpp's Fp16ToFloat: exact for finite halves; exponent 31 read as a number."""
    sign = -1.0 if bits & 0x8000 else 1.0
    exp = (bits >> 10) & 0x1F
    man = bits & 0x3FF
    if exp == 0:
        return sign * man * 2.0**-24  # subnormal (or zero)
    return sign * (1024 + man) * 2.0 ** (exp - 25)


@helper("aclFloatToFloat16", defaults=(0,))
def float_to_float16(m, th, value: real):
    """aclFloatToFloat16: the aclFloat16 bits (an int) of ``value``, saturating (module docstring)."""
    return float_bits_to_half(_float32_bits(value))


@helper("aclFloat16ToFloat", defaults=(0.0,))
def float16_to_float(m, th, value: half):
    """aclFloat16ToFloat: the float an aclFloat16's bits stand for (no inf or NaN: module docstring)."""
    return half_to_float(value)


def _version(pkg_name: str) -> str:
    if pkg_name not in PACKAGES:
        fail(
            ACL_ERROR_INVALID_FILE,
            f"no version information for package {describe(pkg_name)}: the sandbox models the "
            'runtime, not an installed CANN package; the only package it knows is "runtime", the '
            f"version of the runtime sources its codes follow ({RUNTIME_SOURCES_VERSION})",
        )
    return PACKAGES[pkg_name]


def version_number(text: str) -> int:
    """acl.cpp's CalculateVersionNum for a plain X.Y.Z version."""
    major, minor, patch = (int(part) for part in text.split("."))
    return major * _WEIGHT_MAJOR + minor * _WEIGHT_MINOR + patch * _WEIGHT_PATCH


@api("aclsysGetVersionStr", defaults=("",))
def get_version_str(m, th, pkg_name: package):
    """aclsysGetVersionStr: ``(version_str, ret)`` of a package; only "runtime" is known (module docstring)."""
    return _version(pkg_name)


@api("aclsysGetVersionNum", defaults=(0,))
def get_version_num(m, th, pkg_name: package):
    """aclsysGetVersionNum: ``(version_num, ret)`` of a package; only "runtime" is known (module docstring)."""
    return version_number(_version(pkg_name))

"""The notify samples' device kernels (kernel_func/write_read_value.cpp of the official samples), in Python.

``WriteDo`` writes one int into device memory and prints it, ``ReadDo`` prints the int it
finds there.  On the device they print with the kernel printf, whose lines reach the
terminal when the runtime flushes them; here a kernel body prints when the kernel finishes,
so a line may come earlier than in the official README (the port's docstring says where).
"""

import numpy as np

import sandbox


@sandbox.kernel(ns=2_000, writes=("dst",))
def write_value(dst: sandbox.ptr(np.int32, count=1), value: int):
    dst[0] = value
    print(f"Source data: {int(dst[0])}")


@sandbox.kernel(ns=2_000, writes=())
def read_value(src: sandbox.ptr(np.int32, count=1)):
    print(f"Destination data: {int(src[0])}")


def write_do(block_dim, stream, dst, value):
    return write_value[block_dim, stream](dst, value)


def read_do(block_dim, stream, src):
    return read_value[block_dim, stream](src)

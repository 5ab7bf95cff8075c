"""aclrtSetStreamConfigOpt's value size for ACL_RT_STREAM_FLAG (acl/_stream_config.py)."""

from __future__ import annotations

import pytest

from sandbox import acl


@pytest.mark.parametrize("size", [4, 8])
def test_the_stream_flag_takes_the_size_of_uint32_t_as_the_official_sample_passes_or_of_size_t(device0, size):
    config, _ = acl.rt.create_stream_config_handle()
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_FLAG, acl.ACL_STREAM_FAST_LAUNCH, size) == 0
    stream, ret = acl.rt.create_stream_v2(config)
    assert ret == 0 and acl.rt.stream_get_flags(stream) == (acl.ACL_STREAM_FAST_LAUNCH, 0)


@pytest.mark.parametrize("size", [0, 2, 16])
def test_any_other_stream_flag_size_is_100000_and_changes_nothing(device0, size):
    config, _ = acl.rt.create_stream_config_handle()
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_FLAG, 1, size) == acl.ACL_ERROR_INVALID_PARAM
    stream, _ = acl.rt.create_stream_v2(config)
    assert acl.rt.stream_get_flags(stream) == (0, 0)


@pytest.mark.parametrize("size", [4, 8])
def test_a_negative_value_is_the_unsigned_integer_c_reads_and_the_stream_keeps_its_uint32_flags(device0, size):
    config, _ = acl.rt.create_stream_config_handle()
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_FLAG, -1, size) == 0
    stream, ret = acl.rt.create_stream_v2(config)
    assert ret == 0 and acl.rt.stream_get_flags(stream) == (2**32 - 1, 0)


def test_a_negative_priority_is_a_large_uint32_and_refused(device0):
    config, _ = acl.rt.create_stream_config_handle()
    assert acl.rt.set_stream_config_opt(config, acl.ACL_RT_STREAM_PRIORITY, -1, 4) == acl.ACL_ERROR_INVALID_PARAM

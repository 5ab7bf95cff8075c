"""Custom allocator descriptors and their registration on a stream (sandbox/acl/_allocator.py)."""

from __future__ import annotations

import pytest

import sandbox
from sandbox import acl
from sandbox.acl._allocator import Allocators
from sandbox.core.current_machine import current

INVALID = acl.ACL_ERROR_INVALID_PARAM
SETTERS = {
    "alloc": acl.rt.allocator_set_alloc_func_to_desc,
    "free": acl.rt.allocator_set_free_func_to_desc,
    "alloc_advise": acl.rt.allocator_set_alloc_advise_func_to_desc,
    "get_addr_from_block": acl.rt.allocator_set_get_addr_from_block_func_to_desc,
}


def my_alloc(allocator, size):
    return bytearray(size)


def my_free(allocator, block):
    pass


def my_advise(allocator, size, addr):
    return bytearray(size)


def my_addr(block):
    return block


def full_desc(state=None, advise=True):
    desc = acl.rt.allocator_create_desc()
    assert desc != 0
    assert acl.rt.allocator_set_obj_to_desc(desc, {} if state is None else state) == 0
    assert acl.rt.allocator_set_alloc_func_to_desc(desc, my_alloc) == 0
    assert acl.rt.allocator_set_free_func_to_desc(desc, my_free) == 0
    if advise:
        assert acl.rt.allocator_set_alloc_advise_func_to_desc(desc, my_advise) == 0
    assert acl.rt.allocator_set_get_addr_from_block_func_to_desc(desc, my_addr) == 0
    return desc


def registrations():
    return dict(current().feature(Allocators).registered)


def test_get_by_stream_hands_back_the_registered_descriptor_object_and_functions(device0):
    state = {"allocs": 0}
    desc = full_desc(state)
    assert acl.rt.allocator_register(device0, desc) == 0
    got = acl.rt.allocator_get_by_stream(device0)
    assert got == (desc, state, my_alloc, my_free, my_advise, my_addr, 0)
    assert got[1] is state


def test_each_descriptor_is_a_new_handle(machine):
    first = acl.rt.allocator_create_desc()
    second = acl.rt.allocator_create_desc()
    assert 0 != first != second != 0


def test_descriptors_work_before_acl_init():
    sandbox.configure("ascend910b")
    desc = acl.rt.allocator_create_desc()
    assert desc != 0 and acl.rt.allocator_set_alloc_func_to_desc(desc, my_alloc) == 0
    assert acl.rt.allocator_destroy_desc(desc) == 0


@pytest.mark.parametrize("missing", ["obj", "alloc", "free", "get_addr_from_block"])
def test_register_of_a_descriptor_missing_its_object_or_a_required_function_is_100000(device0, missing):
    desc = acl.rt.allocator_create_desc()
    if missing != "obj":
        assert acl.rt.allocator_set_obj_to_desc(desc, {}) == 0
    for field, setter in SETTERS.items():
        if field != missing:
            assert (
                setter(desc, {"alloc": my_alloc, "free": my_free, "alloc_advise": my_advise}.get(field, my_addr)) == 0
            )
    assert acl.rt.allocator_register(device0, desc) == INVALID
    assert "is null" in acl.get_recent_err_msg()
    assert registrations() == {}


def test_register_without_an_advise_function_succeeds_and_reads_back_none(device0):
    desc = full_desc(advise=False)
    assert acl.rt.allocator_register(device0, desc) == 0
    assert acl.rt.allocator_get_by_stream(device0)[4] is None


def test_register_on_the_null_default_stream_is_100000(device0):
    assert acl.rt.allocator_register(0, full_desc()) == INVALID
    assert acl.rt.allocator_register(0, full_desc()) == INVALID
    assert registrations() == {}


def test_register_on_a_handle_that_is_no_live_stream_is_100000(device0):
    assert acl.rt.allocator_register(123456789, full_desc()) == INVALID
    assert registrations() == {}


def test_registering_twice_on_a_stream_replaces_the_first_registration(device0):
    first, second = full_desc({"n": 1}), full_desc({"n": 2})
    assert acl.rt.allocator_register(device0, first) == 0
    assert acl.rt.allocator_register(device0, second) == 0
    desc, state, *_rest, ret = acl.rt.allocator_get_by_stream(device0)
    assert (desc, state, ret) == (second, {"n": 2}, 0)


def test_each_stream_keeps_its_own_registration(device0):
    other, _ = acl.rt.create_stream()
    a, b = full_desc({"a": 1}), full_desc({"b": 1})
    assert acl.rt.allocator_register(device0, a) == 0 and acl.rt.allocator_register(other, b) == 0
    assert acl.rt.allocator_get_by_stream(device0)[0] == a
    assert acl.rt.allocator_get_by_stream(other)[0] == b


def test_get_by_stream_on_a_stream_with_no_registration_is_100000(device0):
    assert acl.rt.allocator_get_by_stream(device0) == (0, None, None, None, None, None, INVALID)
    assert "not registered with any allocator" in acl.get_recent_err_msg()


def test_get_by_stream_on_the_null_stream_is_100000(device0):
    assert acl.rt.allocator_get_by_stream(0)[-1] == INVALID


def test_unregister_ends_the_registration(device0):
    assert acl.rt.allocator_register(device0, full_desc()) == 0
    assert acl.rt.allocator_unregister(device0) == 0
    assert acl.rt.allocator_get_by_stream(device0)[-1] == INVALID


def test_unregister_of_a_stream_with_no_registration_succeeds(device0):
    assert acl.rt.allocator_unregister(device0) == 0


def test_unregister_of_the_null_stream_is_100000(device0):
    assert acl.rt.allocator_unregister(0) == INVALID


def test_registration_is_a_copy_later_changes_to_the_descriptor_do_not_reach_it(device0):
    desc = full_desc({"old": 1})
    assert acl.rt.allocator_register(device0, desc) == 0
    assert acl.rt.allocator_set_obj_to_desc(desc, {"new": 1}) == 0
    assert acl.rt.allocator_set_alloc_func_to_desc(desc, my_advise) == 0
    _desc, state, alloc, *_rest = acl.rt.allocator_get_by_stream(device0)
    assert state == {"old": 1} and alloc is my_alloc


def test_destroying_a_registered_descriptor_leaves_the_registration_in_place(device0):
    desc = full_desc()
    assert acl.rt.allocator_register(device0, desc) == 0
    assert acl.rt.allocator_destroy_desc(desc) == 0
    got = acl.rt.allocator_get_by_stream(device0)
    assert got[0] == desc and got[2] is my_alloc and got[-1] == 0


def test_a_destroyed_descriptor_is_100000_for_every_later_call(device0):
    desc = full_desc()
    assert acl.rt.allocator_destroy_desc(desc) == 0
    assert acl.rt.allocator_destroy_desc(desc) == INVALID
    assert acl.rt.allocator_set_obj_to_desc(desc, {}) == INVALID
    for setter in SETTERS.values():
        assert setter(desc, my_alloc) == INVALID
    assert acl.rt.allocator_register(device0, desc) == INVALID
    assert "not a live aclrtAllocatorDesc" in acl.get_recent_err_msg()


def test_a_null_descriptor_is_100000(device0):
    assert acl.rt.allocator_destroy_desc(0) == INVALID
    assert acl.rt.allocator_set_obj_to_desc(0, {}) == INVALID
    assert acl.rt.allocator_register(device0, 0) == INVALID


def test_setting_a_null_object_or_function_is_100000_and_keeps_the_old_value(device0):
    desc = full_desc({"kept": 1})
    assert acl.rt.allocator_set_obj_to_desc(desc, None) == INVALID
    for setter in SETTERS.values():
        assert setter(desc, None) == INVALID
    assert acl.rt.allocator_register(device0, desc) == 0
    assert acl.rt.allocator_get_by_stream(device0)[1:6] == ({"kept": 1}, my_alloc, my_free, my_advise, my_addr)


def test_a_function_that_is_not_callable_is_100000(device0):
    desc = acl.rt.allocator_create_desc()
    assert acl.rt.allocator_set_free_func_to_desc(desc, 42) == INVALID
    assert "must be a function" in acl.get_recent_err_msg()


def test_destroying_a_stream_ends_its_registration(device0):
    assert acl.rt.allocator_register(device0, full_desc()) == 0
    assert acl.rt.destroy_stream(device0) == 0
    assert registrations() == {}
    assert acl.rt.allocator_get_by_stream(device0)[-1] == INVALID


def test_resetting_the_device_ends_the_registrations_of_its_streams(device0):
    assert acl.rt.allocator_register(device0, full_desc()) == 0
    assert acl.rt.reset_device_force(0) == 0
    assert registrations() == {}


def test_the_end_of_a_process_ends_its_registrations_and_descriptors(machine):
    def child():
        acl.init()
        acl.rt.set_device(0)
        stream, _ = acl.rt.create_stream()
        assert acl.rt.allocator_register(stream, full_desc()) == 0
        full_desc()  # never destroyed
        assert len(registrations()) == 1

    with pytest.warns(sandbox.LeakWarning):  # the stream it left behind
        sandbox.spawn_process(child, name="B").join()
    assert registrations() == {}
    assert current().feature(Allocators).descs == {}


def test_another_process_sees_neither_the_descriptors_nor_the_registrations_of_a_process(device0):
    desc = full_desc()
    assert acl.rt.allocator_register(device0, desc) == 0
    seen = []

    def child():
        acl.init()
        seen.append(acl.rt.allocator_get_by_stream(device0)[-1])
        seen.append(acl.rt.allocator_set_obj_to_desc(desc, {}))
        seen.append(acl.rt.allocator_unregister(device0))

    sandbox.spawn_process(child, name="B").join()
    assert seen == [INVALID, INVALID, 0]
    assert acl.rt.allocator_get_by_stream(device0)[0] == desc


def test_a_refused_register_changes_nothing(device0):
    good = full_desc({"good": 1})
    assert acl.rt.allocator_register(device0, good) == 0
    bad = acl.rt.allocator_create_desc()
    assert acl.rt.allocator_register(device0, bad) == INVALID
    assert acl.rt.allocator_get_by_stream(device0)[:2] == (good, {"good": 1})

"""The Chinese catalogues keep one spacing rule, the one most of their text already kept: a space
between a Chinese character and a Latin letter or digit ("在 Host 函数中", "在 Device 0 上"),
none next to Chinese punctuation.  The rule holds in the catalogues' own text, and where a
field is filled in (a field's text is only known then: "在它自己的{}中" with "Host 函数")."""

from __future__ import annotations

import re

import pytest

import sandbox
from sandbox import i18n

TIGHT = re.compile(r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]")


@pytest.fixture
def zh():
    sandbox.set_language("zh")
    yield
    sandbox.set_language("en")


def catalogue_texts():
    from sandbox.teach import texts_zh as teach_texts
    from sandbox.viz import texts_zh as view_texts

    yield from teach_texts.TEXTS.values()
    yield from teach_texts.TEMPLATES.values()
    yield from (t for _, t in teach_texts.PATTERNS)
    yield from getattr(teach_texts, "REPORTS", {}).values()
    yield from view_texts.TEXTS.values()


def test_the_chinese_catalogues_put_a_space_between_chinese_and_latin_text():
    found = sorted({t for t in catalogue_texts() if TIGHT.search(t)})
    assert found == [], f"put a space between Chinese and Latin text: {found[:5]}"


def test_a_latin_field_next_to_chinese_text_gets_a_space(zh):
    assert i18n.translate(
        "each of the 4 batches was summarised in a host function (aclrtLaunchHostFunc) of its own"
    ) == ("4 个批次中的每一个都在它自己的 Host 函数（aclrtLaunchHostFunc）中汇总")
    assert (
        i18n.text("{} recorded by task {} on {}", "e1", 3, "NPU 0 Stream 1") == "e1，由 NPU 0 Stream 1 上的任务 3 记录"
    )
    assert i18n.text("Timeline ({} view): {}, {}, ends at {}", "logical", "1", "2", "3 ms") == (
        "时间线（logical 视图）：1，2，结束于 3 ms"
    )


def test_a_chinese_field_next_to_chinese_text_gets_no_space(zh):
    assert i18n.text("{} recorded by task {} on {}", "e1", 3, "拷贝队列") == "e1，由拷贝队列上的任务 3 记录"
    assert i18n.translate("each of the 4 batches was summarised in a callback (aclrtLaunchCallback) of its own") == (
        "4 个批次中的每一个都在它自己的回调（aclrtLaunchCallback）中汇总"
    )


def test_in_english_a_filled_in_text_is_what_str_format_makes():
    assert i18n.text("{} recorded by task {} on {}", "e1", 3, "流 1") == "e1 recorded by task 3 on 流 1"

"""Concept checks (sandbox/teach/concepts.py): every notebook asks three to five questions whose
wrong choices are real mistakes, each graded with why, in both languages, through teach.check."""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext
import pytest

import sandbox
from sandbox import teach
from sandbox.teach.concepts import LETTERS, Question, Quiz, grade_answers, quizzes

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from notebook_sources import sources  # noqa: E402

TOY = Quiz(
    "99.concepts",
    "Toy",
    "玩具",
    (
        Question(
            "Two launches on one stream run",
            ("in order", "at the same time"),
            "a",
            ("right: a stream is a queue", "a stream does not overlap its own tasks"),
            "the timeline",
            {
                "text": "同一 Stream 上的两次下发",
                "choices": ("按顺序执行", "同时执行"),
                "why": ("对：Stream 是队列", "Stream 不会让自己的任务重叠"),
                "shown_by": "时间线",
            },
        ),
        Question("One plus one", ("1", "2", "3"), "b", ("too few", "right", "too many"), "arithmetic"),
    ),
)


@pytest.fixture(autouse=True)
def english():
    sandbox.set_language("en")
    yield
    sandbox.set_language("en")


def test_a_right_answer_is_a_tick_with_its_reason_and_a_wrong_one_names_the_mistake_and_the_cell():
    g = grade_answers(TOY, lambda: {1: "a", 2: "c"})
    assert [c.passed for c in g.checks] == [True, False]
    assert "right: a stream is a queue" in g.checks[0].detail
    assert "too many" in g.checks[1].detail and "arithmetic" in g.checks[1].hint
    assert not g.passed and g.score == 0.5


def test_letters_are_read_as_a_learner_writes_them():
    g = grade_answers(TOY, {"1": " (A) ", 2: "B"})
    assert g.passed and g.score == 1.0


def test_an_unanswered_stub_is_a_cross_on_every_question_not_a_traceback():
    def stub():
        raise NotImplementedError()

    g = grade_answers(TOY, stub)
    assert g.score == 0.0 and all("not answered" in c.detail for c in g.checks)
    assert "not one of the choices" in grade_answers(TOY, {1: "z", 2: 2}).checks[0].detail
    assert not grade_answers(TOY, lambda: 1 / 0).passed
    assert "not a dict" in str(grade_answers(TOY, lambda: "ab"))


def test_a_question_speaks_the_notebook_s_language():
    sandbox.set_language("zh")
    g = grade_answers(TOY, {1: "b", 2: "b"})
    assert "Stream 不会让自己的任务重叠" in str(g) and "时间线" in str(g)
    sheet = str(teach.concepts.QuestionSheet(TOY))
    assert "同一 Stream 上的两次下发" in sheet and "(b) 同时执行" in sheet


def test_a_malformed_question_is_refused_when_it_is_written():
    with pytest.raises(ValueError):
        Question("q", ("only one",), "a", ("why",), "x")
    with pytest.raises(ValueError):
        Question("q", ("a", "b"), "c", ("x", "y"), "x")
    with pytest.raises(ValueError):
        Question("q", ("a", "b"), "a", ("x",), "x")


def _nn(source: Path) -> str:
    """The notebook a source belongs to: a deep dive ("03x_...") asks its core notebook's questions."""
    return source.stem.split("_")[0].removesuffix("x")


NOTEBOOKS = sorted({_nn(s) for s in sources()})


@pytest.mark.parametrize("nn", NOTEBOOKS)
def test_every_notebook_has_three_to_five_concept_questions_in_both_languages(nn):
    quiz = quizzes().get(f"{nn}.concepts")
    assert quiz is not None, f"notebook {nn} has no concept check"
    assert 3 <= len(quiz.questions) <= 5
    assert quiz.title and quiz.title_zh
    for q in quiz.questions:
        assert q.zh and all(q.zh.get(k) for k in ("text", "choices", "why", "shown_by")), q.text
        assert q.answer in LETTERS[: len(q.choices)]


@pytest.mark.parametrize("nn", NOTEBOOKS)
def test_every_notebook_shows_its_questions_and_checks_the_answers(nn):
    text = "\n".join(s.read_text(encoding="utf-8") for s in sources() if _nn(s) == nn)
    assert f'teach.questions("{nn}.concepts")' in text
    assert f'teach.check("{nn}.concepts"' in text
    assert f'teach.check("{nn}.concepts", concepts, isolated=True).score' in text, "nbgrader's partial credit"


@pytest.mark.parametrize("nn", NOTEBOOKS)
def test_the_reference_answers_in_the_instructor_source_pass(nn):
    for source in sources():
        if _nn(source) != nn:
            continue
        for cell in jupytext.read(source, fmt="py:percent").cells:
            if cell.cell_type == "code" and "def concepts(" in cell.source:
                scope: dict = {}
                exec(cell.source.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""), scope)
                assert teach.check(f"{nn}.concepts", scope["concepts"]).passed
                return
    pytest.fail(f"notebook {nn} has no `def concepts():` answer cell")


def test_an_isolated_concept_check_grades_in_a_fresh_interpreter():
    quiz = next(iter(quizzes().values()))
    right = {n: q.answer for n, q in enumerate(quiz.questions, 1)}
    g = teach.check(quiz.id, lambda: right, isolated=True)
    assert g.passed and g.score == 1.0

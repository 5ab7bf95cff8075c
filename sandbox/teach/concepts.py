"""Concept checks: a few multiple-choice questions per notebook, graded like the exercises.

    teach.questions("02.concepts")             # the questions, in the notebook's language
    teach.check("02.concepts", answers)        # answers() returns {1: "b", 2: "a", ...}

A programming exercise shows whether a learner can write the calls; a concept check shows
whether they can say what the runtime will do before it does it.  Each wrong choice is a
mistake learners really make, and picking it prints why it is wrong and which cell of the
notebook shows the right answer, so a ✘ teaches instead of only scoring.

The questions live with the notebook's exercises (``sandbox/teach/exercise_sets/nbNN.py``),
each text in English and Simplified Chinese side by side: a question is prose, not a grader
message, so it is written once in each language rather than looked up by pattern.  Grading
needs no machine: the answers are compared with the key.  ``Grade.score`` is the share of
questions answered right, which nbgrader takes as partial credit when a hidden-test cell ends
with it.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field

from sandbox import i18n

from .checks import Check
from .verdict import Grade

LETTERS = string.ascii_lowercase


@dataclass(frozen=True)
class Question:
    """One question: its text, the choices, the right letter, and for every choice why it is
    right or which mistake it stands for; ``shown_by`` names the cell that shows the answer.
    ``zh`` holds the same four texts in Chinese: ``{"text", "choices", "why", "shown_by"}``."""

    text: str
    choices: tuple[str, ...]
    answer: str
    why: tuple[str, ...]
    shown_by: str
    zh: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.choices)
        if not 2 <= n <= len(LETTERS) or len(self.why) != n:
            raise ValueError("a question needs at least two choices and one explanation per choice")
        if self.answer not in LETTERS[:n]:
            raise ValueError(f"the answer {self.answer!r} is not one of the choices")
        if self.zh and (len(self.zh.get("choices", ())) != n or len(self.zh.get("why", ())) != n):
            raise ValueError("the Chinese text needs the same number of choices and explanations")

    def texts(self) -> tuple[str, tuple[str, ...], tuple[str, ...], str]:
        """Text, choices, explanations and where it is shown, in the current language."""
        if i18n.language() == "zh" and self.zh:
            z = self.zh
            return z["text"], tuple(z["choices"]), tuple(z["why"]), z["shown_by"]
        return self.text, self.choices, self.why, self.shown_by


@dataclass(frozen=True)
class Quiz:
    """A notebook's concept check: ``id`` is ``"NN.concepts"``."""

    id: str
    title: str
    title_zh: str
    questions: tuple[Question, ...]
    time_limit_s: float = 10.0  # what an isolated check waits for the answers function

    def heading(self) -> str:
        return self.title_zh if i18n.language() == "zh" else self.title


class QuestionSheet:
    """The questions of a quiz as the learner reads them (Markdown in a notebook, text elsewhere)."""

    def __init__(self, quiz: Quiz):
        self.quiz = quiz

    def _lines(self, markdown: bool) -> list[str]:
        zh = i18n.language() == "zh"
        head = f"{self.quiz.id} · {self.quiz.heading()}"
        lines = [f"**{head}**" if markdown else head, ""]
        for n, q in enumerate(self.quiz.questions, 1):
            text, choices, _, _ = q.texts()
            lines.append(f"{n}. {text}")
            for letter, choice in zip(LETTERS, choices):
                lines.append(f"    - ({letter}) {choice}" if markdown else f"   ({letter}) {choice}")
            lines.append("")
        example = ", ".join(f'{n}: "?"' for n in range(1, len(self.quiz.questions) + 1))
        tail = (
            f"在答案函数中返回 {{{example}}}，每个问号换成一个字母。"
            if zh
            else f"Answer with a function that returns {{{example}}}, each ? a letter."
        )
        lines.append(tail)
        return lines

    def _repr_markdown_(self) -> str:
        return "\n".join(self._lines(markdown=True))

    def __str__(self) -> str:
        return "\n".join(self._lines(markdown=False))

    __repr__ = __str__


_QUIZZES: dict[str, Quiz] = {}


def register_quiz(quiz: Quiz) -> Quiz:
    """Add a notebook's concept check (the exercise modules call this)."""
    if not quiz.id.endswith(".concepts"):
        raise ValueError("a concept check's id is 'NN.concepts'")
    _QUIZZES[quiz.id] = quiz
    return quiz


def quizzes() -> dict[str, Quiz]:
    from . import exercise_sets as _modules  # noqa: F401  (importing registers them)

    return _QUIZZES


def questions(quiz_id: str) -> QuestionSheet:
    """The questions of a notebook's concept check, to read before answering."""
    known = quizzes()
    if quiz_id not in known:
        raise KeyError(f"no concept check {quiz_id!r}; there are {', '.join(sorted(known))}")
    return QuestionSheet(known[quiz_id])


def _letter(value) -> str | None:
    """A choice as the learner wrote it ("b", "B", "(b)", " b ") as a letter, or None."""
    if not isinstance(value, str):
        return None
    text = value.strip().strip("()").strip().lower()
    return text if len(text) == 1 and text in LETTERS else None


def judge(quiz: Quiz, answers) -> list[Check]:
    """One ✔/✘ line per question: the choice, and why it is right or what it mistakes."""
    zh = i18n.language() == "zh"
    lines = []
    for n, q in enumerate(quiz.questions, 1):
        _, choices, why, shown_by = q.texts()
        what = f"问题 {n}" if zh else f"question {n}"
        given = answers.get(n, answers.get(str(n))) if isinstance(answers, dict) else None
        letter = _letter(given)
        valid = LETTERS[: len(choices)]
        if letter is None or letter not in valid:
            if given is None:
                detail = "尚未作答" if zh else "not answered"
            else:
                detail = f"{given!r} 不是选项" if zh else f"{given!r} is not one of the choices"
            pick = "、".join(valid) if zh else ", ".join(valid)
            hint = f"回答 {pick} 中的一个字母" if zh else f"answer with one letter of {pick}"
            lines.append(Check(what, False, detail, hint))
            continue
        i = LETTERS.index(letter)
        right = letter == q.answer
        detail = f"({letter}) {why[i]}"
        hint = "" if right else (f"再看一遍{shown_by}" if zh else f"look again at {shown_by}")
        lines.append(Check(what, right, detail, hint))
    return lines


def grade_answers(quiz: Quiz, answers):
    """The grade of ``answers`` (a function returning ``{number: letter}``, or the dict itself)."""
    zh = i18n.language() == "zh"
    if callable(answers):
        try:
            answers = answers()
        except NotImplementedError:
            answers = {}
        except Exception as exc:  # noqa: BLE001 - the learner's function may raise anything
            what = "答案函数" if zh else "the answers"
            detail = (
                f"函数抛出 {type(exc).__name__}: {exc}" if zh else f"the function raised {type(exc).__name__}: {exc}"
            )
            hint = '返回一个字典，例如 {1: "a"}' if zh else 'return a dict such as {1: "a"}'
            return Grade(quiz.id, quiz.heading(), [Check(what, False, detail, hint)])
    if not isinstance(answers, dict):
        what = "答案函数" if zh else "the answers"
        detail = f"得到 {type(answers).__name__}，不是字典" if zh else f"got a {type(answers).__name__}, not a dict"
        hint = "返回 {题号: 字母}" if zh else "return {question number: letter}"
        return Grade(quiz.id, quiz.heading(), [Check(what, False, detail, hint)])
    return Grade(quiz.id, quiz.heading(), judge(quiz, answers))

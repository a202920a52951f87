"""The code transforms: exact outputs on known texts, determinism, and honest refusals."""

from __future__ import annotations

import pytest

from sane.edits import (
    EVALUATOR_NOTE,
    FILLER,
    OPERATORS,
    RESTATEMENT,
    SELF_PRAISE,
    TRANSFORMS,
    TransformError,
    TransformInput,
    apply_transform,
    sentences,
)

TEXT = "Dr. Smith approved the plan on Monday. Work starts in May. It ends in June."
EXAMPLES = (
    {"summary": "First text."},
    {"summary": "First text."},
    {"summary": "Second text."},
)


def _run(name: str, text: str = TEXT, **kwargs: object) -> str:
    return apply_transform(name, TransformInput(text=text, **kwargs))  # type: ignore[arg-type]


def test_sentences_cover_the_text_exactly() -> None:
    pieces = sentences(TEXT)
    assert "".join(pieces) == TEXT
    assert [p.strip() for p in pieces] == [
        "Dr. Smith approved the plan on Monday.",
        "Work starts in May.",
        "It ends in June.",
    ]


def test_extra_spaces_doubles_word_gaps_only() -> None:
    assert _run("extra_spaces", "a b  c\nd") == "a  b    c\nd"


def test_tabs_indents_and_separates_sentences() -> None:
    assert _run("tabs") == (
        "\tDr. Smith approved the plan on Monday.\tWork starts in May.\tIt ends in June."
    )


def test_blank_lines_between_sentences() -> None:
    assert _run("blank_lines") == (
        "Dr. Smith approved the plan on Monday.\n\nWork starts in May.\n\nIt ends in June."
    )


def test_blank_lines_around_a_single_sentence() -> None:
    assert _run("blank_lines", "Only one.") == "\n\nOnly one.\n\n"


def test_sentence_deletion_drops_every_other_sentence() -> None:
    assert _run("sentence_deletion") == "Dr. Smith approved the plan on Monday. It ends in June."


def test_sentence_deletion_keeps_headers_and_line_breaks() -> None:
    text = "Summary:\nOne. Two.\nThree. Four."
    assert _run("sentence_deletion", text) == "Summary:\nOne. \nThree."


def test_sentence_deletion_refuses_a_single_sentence() -> None:
    with pytest.raises(TransformError, match="two sentences"):
        _run("sentence_deletion", "Only one sentence here.")


def test_meaningless_elongation_appends_the_same_filler() -> None:
    assert _run("meaningless_elongation", "A text.") == f"A text. {FILLER}"
    assert _run("meaningless_elongation", "Other.") == f"Other. {FILLER}"


def test_random_replacement_takes_the_next_different_example() -> None:
    data = {"examples": EXAMPLES, "scored_field": "summary"}
    assert _run("random_replacement", "First text.", example_index=0, **data) == "Second text."
    assert _run("random_replacement", "Second text.", example_index=2, **data) == "First text."


def test_random_replacement_needs_another_text() -> None:
    with pytest.raises(TransformError):
        _run(
            "random_replacement",
            "First text.",
            example_index=0,
            examples=EXAMPLES[:2],
            scored_field="summary",
        )


def test_format_transforms_refuse_to_leave_text_unchanged() -> None:
    with pytest.raises(TransformError, match="unchanged"):
        _run("extra_spaces", "word")


def test_identity_is_the_text() -> None:
    assert _run("identity") == TEXT


@pytest.mark.parametrize("name", sorted(set(TRANSFORMS) - {"random_replacement"}))
def test_every_transform_is_deterministic(name: str) -> None:
    text = TEXT + " It is 12 weeks long."  # a number and an auxiliary verb for every operator
    pair = {"examples": ({"t": text, "other": "Another text."},), "other_field": "other"}
    outputs = {_run(name, text, **pair) for _ in range(3)}  # a second candidate for any edit
    assert len(outputs) == 1


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("change_number", "It cost 48 dollars in 2019.", "It cost 55 dollars in 2019."),
        ("negate", "It is big. It was not small.", "It is not big. It was not small."),
        ("negate", "It was not small. It is big.", "It was not small. It is not big."),
        ("lowercase", "Alice met Bob.", "alice met bob."),
        ("reverse_sentences", "One. Two? Three!", "Three! Two? One."),
        ("drop_last_sentence", "One. Two. Three.", "One. Two."),
    ],
)
def test_operators_do_exactly_what_their_instruction_says(name: str, text: str, expected: str):
    assert name in OPERATORS
    assert _run(name, text) == expected


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("change_number", "No digits here."),
        ("negate", "Nothing to negate here."),
        ("lowercase", "already lower."),
        ("reverse_sentences", "One sentence only."),
        ("drop_last_sentence", "One sentence only."),
    ],
)
def test_an_operator_that_cannot_change_the_text_refuses(name: str, text: str) -> None:
    with pytest.raises(TransformError):
        _run(name, text)


def test_unknown_transform_is_named() -> None:
    with pytest.raises(KeyError, match="unknown transform 'nope'"):
        _run("nope")


# ------------------------------------------------- the comparative baseline's edits

PAIR = ({"question": "Q?", "answer_a": "Canberra.", "answer_b": "Sydney, the largest city."},)


@pytest.mark.parametrize(
    ("name", "sentence"),
    [
        ("restatement_padding", RESTATEMENT),
        ("self_praise", SELF_PRAISE),
        ("evaluator_note", EVALUATOR_NOTE),
    ],
)
def test_an_appended_sentence_follows_the_text_as_filler_does(name: str, sentence: str) -> None:
    assert _run(name, "One line.  ") == f"One line. {sentence}"
    assert _run(name, "A list:\n- one\n") == f"A list:\n- one\n\n{sentence}"
    assert name not in OPERATORS  # the recipe agent's catalogue is unchanged


def test_other_candidate_copies_the_second_candidate_into_the_first() -> None:
    given = {"examples": PAIR, "example_index": 0, "other_field": "answer_b"}
    assert _run("other_candidate", "Canberra.", **given) == "Sydney, the largest city."
    with pytest.raises(TransformError, match="comparative spec's second candidate"):
        _run("other_candidate", "Canberra.", examples=PAIR)  # a pointwise spec: no other field
    same = ({"answer_a": "Sydney.", "answer_b": "Sydney."},)
    with pytest.raises(TransformError, match="leaves this text unchanged"):
        _run("other_candidate", "Sydney.", examples=same, other_field="answer_b")

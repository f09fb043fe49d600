"""The drawn fork: which branch is selected, recommended, rejected or Other, and a deleted fork.

The tree is checked twice: as the branches the view computes, and as pixels, so a regression in
painting (the selected branch no longer highlighted) fails even when the data is right.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage, QPalette
from pytestqt.qtbot import QtBot

from app.gui.journal.decision_details import DecisionDetails
from app.gui.journal.fork_view import (
    CUSTOM_KEY,
    LINE_CONTRAST,
    BranchState,
    ForkView,
    fork_tree,
    legible_colors,
)
from app.gui.widgets.palette import (
    ForkColors,
    build_palette,
    contrast_ratio,
    fork_colors,
    readable_on,
)
from core.gocompat.gotime import GoTime
from tests.app.support.journal_support import record

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


@pytest.fixture
def view(qtbot: QtBot) -> Iterator[ForkView]:
    widget = ForkView()
    widget.setPalette(build_palette(dark=False))
    widget.resize(640, 600)
    qtbot.addWidget(widget)
    yield widget


def _image(view: ForkView) -> QImage:
    view.resize(640, view.heightForWidth(640))
    return view.grab().toImage()


def _has_colour(image: QImage, rect_args: tuple[int, int, int, int], colour: QColor) -> bool:
    """Whether the colour appears (within a small tolerance) anywhere in the rectangle."""
    x0, y0, width, height = rect_args
    for x in range(max(0, x0), min(image.width(), x0 + width)):
        for y in range(max(0, y0), min(image.height(), y0 + height), 2):
            pixel = image.pixelColor(x, y)
            if (
                abs(pixel.red() - colour.red()) < 24
                and abs(pixel.green() - colour.green()) < 24
                and abs(pixel.blue() - colour.blue()) < 24
            ):
                return True
    return False


def test_selected_branch_is_highlighted_and_rejected_ones_carry_their_reason(
    view: ForkView,
) -> None:
    decision = record(1)
    view.show_record(decision)
    tree = view.tree
    assert tree is not None
    assert tree.problem == decision.problem
    assert [b.key for b in tree.branches] == ["per-record", "single", "sqlite"]
    assert tree.branch("per-record").state is BranchState.SELECTED
    assert tree.branch("single").state is BranchState.REJECTED
    assert tree.branch("single").reason == "global rewrite bottleneck"
    assert tree.branch("sqlite").reason == "harder to inspect by hand"
    image = _image(view)
    colours = fork_colors(view.palette())
    selected = view.branch_rect("per-record")
    rejected = view.branch_rect("sqlite")
    edge = (selected.left() - 2, selected.top(), 6, selected.height())
    assert _has_colour(image, edge, colours.selected)
    assert not _has_colour(
        image, (rejected.left() - 2, rejected.top(), 6, rejected.height()), colours.selected
    )


def test_recommended_but_not_chosen_is_still_marked(view: ForkView) -> None:
    view.show_record(record(2))
    tree = view.tree
    assert tree is not None
    recommended = tree.branch("single")
    assert recommended.recommended and recommended.state is BranchState.REJECTED
    assert "recommended" in recommended.caption()
    assert "rejected because global rewrite bottleneck" in recommended.caption()
    rect = view.branch_rect("single")
    image = _image(view)
    amber = fork_colors(view.palette()).recommended
    assert _has_colour(image, (rect.left() - 2, rect.top(), 6, rect.height()), amber)
    assert "Branch: Single document (recommended); rejected" in view.accessibleDescription()


def test_custom_other_is_its_own_selected_branch(view: ForkView) -> None:
    custom = record(
        3,
        selected_option_id="",
        custom_selection="Append-only log with periodic compaction",
        rejected_reasons=[
            *record(3).rejected_reasons,
            record(3)
            .rejected_reasons[0]
            .model_copy(update={"option_id": "per-record", "reason": "too many small files"}),
        ],
    )
    view.show_record(custom)
    tree = view.tree
    assert tree is not None
    other = tree.branch(CUSTOM_KEY)
    assert other.custom and other.state is BranchState.SELECTED
    assert other.label == "Append-only log with periodic compaction"
    assert [b.state for b in tree.branches[:3]] == [BranchState.REJECTED] * 3
    assert tree.branch("per-record").reason == "too many small files"
    rect = view.branch_rect(CUSTOM_KEY)
    image = _image(view)
    teal = fork_colors(view.palette()).custom
    assert _has_colour(image, (rect.left() - 2, rect.top(), 6, rect.height()), teal)


def test_deleted_fork_is_muted_and_says_so(view: ForkView) -> None:
    deleted = record(4, status="deleted", deleted_at=GoTime(1_760_000_600 * 1_000_000_000))
    view.show_record(deleted)
    tree = view.tree
    assert tree is not None and tree.deleted
    assert tree.deleted_note.startswith("Soft-deleted on ")
    assert tree.deleted_note.endswith("restore it to include it again.")
    assert view.accessibleDescription().startswith("Soft-deleted")
    image = _image(view)
    rose = fork_colors(view.palette()).deleted
    assert _has_colour(image, (10, 10, 300, 30), rose)


def test_an_option_without_a_rejection_entry_is_not_chosen(view: ForkView) -> None:
    old = record(5, rejected_reasons=record(5).rejected_reasons[:1])
    tree = fork_tree(old)
    assert tree.branch("sqlite").state is BranchState.UNCHOSEN


def test_details_show_ledger_evidence_provenance_redaction_and_summaries(
    qtbot: QtBot, tmp_path: Path
) -> None:
    details = DecisionDetails()
    qtbot.addWidget(details)
    decision = record(
        6,
        redaction=record(6).redaction.model_copy(
            update={"redacted": True, "patterns": ["openai_key"]}
        ),
    )
    details.show_record(decision)
    assert details.text("ledger").splitlines() == [
        "Selected Per-record JSON: independent files avoid lost updates",
        "Rejected Single document: global rewrite bottleneck",
        "Rejected SQLite database: harder to inspect by hand",
    ]
    assert details.text("evidence") == '<a href="evidence:0">core/store.py:10</a>'
    assert "selection: user" in details.text("provenance")
    assert details.text("confidence") == "91%"
    assert details.text("risk") == "medium"
    assert details.text("domains") == "storage"
    assert details.text("tags") == "layout"
    assert details.text("redaction") == ("Redacted at write time; patterns that fired: openai_key")
    assert "문제를 해결할 때" in details.text("summary-ko")
    assert details.text("summary-en").startswith("To solve “Choose the storage layout")
    assert details.text("status") == "completed"
    assert details.palette().color(QPalette.ColorRole.Window).isValid()


def test_lines_and_badges_stay_visible_when_a_theme_blends_them() -> None:
    card, text = QColor("#242424"), QColor("#ffffff")
    blended = ForkColors(
        trunk=QColor("#2a2a2a"),
        selected=QColor("#3584e4"),
        selected_fill=QColor("#3584e4"),
        recommended=QColor("#f0b429"),
        rejected=QColor("#262626"),
        rejected_text=QColor("#9a9a9a"),
        custom=QColor("#2dd4bf"),
        deleted=QColor("#fb7185"),
        card=card,
        card_border=QColor("#252525"),
        text=text,
    )
    legible = legible_colors(blended)
    for colour in (legible.trunk, legible.card_border, legible.rejected):
        assert contrast_ratio(colour, card) >= LINE_CONTRAST
    assert legible.selected == blended.selected  # colours that were visible are kept
    assert contrast_ratio(readable_on(blended.selected, card), blended.selected) >= 4.5

"""The profile panel's "Mode" tab: whether the selected rule's decision kind is asked or
answered from the profile, its record, and the switch between them, each change confirmed.

Why a confirmation both ways: letting the profile answer is the one place the journal acts for
the person, and taking it back should never be a slip of the keyboard either.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget

from app.gui.widgets.labels import plain_label
from core.decider.fold import fold_name
from core.decider.score import GRADUATION_AGREEMENT, GRADUATION_MIN_SCORED, KindScore

NO_KIND = "Select a rule to see whether its kind of decision is asked or answered for you."
RULE_TEXT = (
    f"A kind may be answered for you after {GRADUATION_MIN_SCORED} predictions scored "
    f"against your own answers agree at least {GRADUATION_AGREEMENT:.0%} of the time. Risky "
    "questions, hard stops and unlock phrases are always asked; two overrules within seven "
    "days set the kind back to ask. Modes and overrules hold on every machine this journal "
    "syncs with."
)


def score_text(score: KindScore) -> str:
    mode = "answered from your profile (auto)" if score.mode == "auto" else "asked (ask)"
    lines = [f"“{score.kind_label}” decisions are {mode}."]
    if score.scored:
        lines.append(
            f"Predictions: {score.agree} agreed, {score.amend} amended, {score.overrule} "
            f"overruled of {score.scored} scored ({score.agreement:.0%} agreement)."
        )
    else:
        lines.append("No prediction has been scored yet.")
    if score.automatic:
        lines.append(f"Answered for you: {score.automatic}.")
    lines.append("Auto is recommended." if score.recommended else f"Not yet: {score.reason}.")
    for change in score.history:
        if change.reason.startswith("demoted"):
            lines.append(f"{change.at[:10]}: {change.reason}.")
    return "\n".join(lines)


class ModesPage(QWidget):
    """Signals: mode_requested(str, str): (kind, "ask" or "auto"), already confirmed."""

    mode_requested = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("profile-modes")
        self._scores: dict[str, KindScore] = {}
        self._kind = ""
        self.summary = plain_label(NO_KIND, self)
        self.summary.setObjectName("mode-summary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.auto_button = QPushButton("Answer &automatically…", self)
        self.auto_button.setObjectName("mode-auto")
        self.ask_button = QPushButton("As&k me every time…", self)
        self.ask_button.setObjectName("mode-ask")
        self.auto_button.clicked.connect(lambda: self._confirm("auto"))
        self.ask_button.clicked.connect(lambda: self._confirm("ask"))
        explainer = QLabel(RULE_TEXT, self)
        explainer.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.auto_button)
        buttons.addWidget(self.ask_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(buttons)
        layout.addWidget(explainer)
        layout.addStretch(1)
        self._refresh()

    def set_scores(self, scores: list[KindScore], error: str = "") -> None:
        self._scores = {s.kind: s for s in scores}
        self._refresh(error)

    def show_kind(self, kind: str) -> None:
        """The selected rule's decision kind, or "" for none."""
        self._kind = fold_name(kind)
        self._refresh()

    def current(self) -> KindScore | None:
        return self._scores.get(self._kind)

    def _refresh(self, error: str = "") -> None:
        score = self.current()
        if error:
            self.summary.setText(f"Modes cannot be read: {error}")
        elif not self._kind:
            self.summary.setText(NO_KIND)
        elif score is None:
            self.summary.setText("This kind of decision is asked (ask); nothing is scored yet.")
        else:
            self.summary.setText(score_text(score))
        self.auto_button.setEnabled(bool(score and score.recommended and score.mode != "auto"))
        self.auto_button.setToolTip(score.reason if score and not score.recommended else "")
        self.ask_button.setEnabled(bool(score and score.mode == "auto"))

    @Slot()
    def _confirm(self, mode: str) -> None:
        score = self.current()
        if score is None:
            return
        if mode == "auto":
            text = (
                f"Let your profile answer “{score.kind_label}” decisions for you?\n\n"
                f"It agreed with you in {score.agree} of {score.scored} scored predictions. "
                "Risky questions are still asked, you are told of every automatic answer, and "
                "you can overrule each one."
            )
        else:
            text = f"Ask you every “{score.kind_label}” decision again?"
        answer = QMessageBox.question(
            self,
            "Change how decisions are answered",
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.mode_requested.emit(score.kind_label, mode)

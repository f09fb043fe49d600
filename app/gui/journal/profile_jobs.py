"""The preference profile tab's work, run in the bridge's `records` lane: rules and modes.

Why a module of its own, without Qt: a corrupt profile or modes file is shown as a message
beside an empty table, never an exception in the GUI thread; that rule is written here once
and tested without a window, and the bridge only hands the views to signals.
"""

from __future__ import annotations

from app.gui.journal.requests import ModesView, OverrideRequest, ProfileView
from core.decider.service import decider_for
from core.errors import describe
from core.journal import Journal
from core.profile.model import PreferenceProfile
from core.profile.worker import ProfileRebuildWorker


def profile_view(journal: Journal, worker: ProfileRebuildWorker) -> ProfileView:
    """The saved profile and the rebuild worker's state; a damaged profile is described."""
    status = worker.status()
    try:
        return ProfileView(journal.profile.load(), status)
    except Exception as exc:  # noqa: BLE001  # a corrupt profile is shown, never fatal
        return ProfileView(PreferenceProfile.empty(), status, str(describe(exc)))


def save_override(journal: Journal, request: OverrideRequest) -> ProfileView:
    """One rule's enabled, pinned or note, saved on the revision the panel showed (CAS)."""
    profile = journal.profile.set_rule(
        request.rule_id,
        request.expected_revision,
        enabled=request.enabled,
        pinned=request.pinned,
        note=request.note,
    )
    return ProfileView(profile, None)


def failed_override(exc: BaseException) -> ProfileView:
    """What the panel shows when an override could not be saved for another reason."""
    return ProfileView(PreferenceProfile.empty(), None, str(describe(exc)))


def modes(journal: Journal) -> ModesView:
    """Every decision kind's score and mode."""
    return ModesView(decider_for(journal).scores())


def set_mode(journal: Journal, kind: str, mode: str) -> ModesView:
    """`ask` always; `auto` only when recommended (the refusal's reason is raised)."""
    decider = decider_for(journal)
    decider.set_mode(kind, mode)
    return ModesView(decider.scores())


def failed_modes(exc: BaseException) -> ModesView:
    return ModesView([], str(describe(exc)))

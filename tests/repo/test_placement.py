"""Each module of `core` and `app` has its test file where a reader looks first, as qutebrowser's
check_coverage holds its modules to their test files.

The test file of `core/<package>/<module>.py` is `tests/core/<package>/test_<module>.py` (and so
on for `app`); `test_<module>_<aspect>.py` beside it (`test_safefs_read.py`) counts too. Two
lists, each commented, name the exceptions: test files named for a feature that spans several
modules, and modules whose tests live in another module's file or run through processes. Both
are checked in both directions, so an entry goes stale loudly when a module or a test moves.
"""

from __future__ import annotations

from pathlib import Path

from tests.repo.tree import ROOT, python_modules, relative

UNIT_TESTS = ("tests/core", "tests/app")
HERE = "tests/repo/test_placement.py"

FEATURE_TESTS: dict[str, str] = {
    # What a person sees or does that no one module owns, so the file is named for it.
    "tests/app/test_window_leaks.py": "capture and question windows give their memory back",
    "tests/core/index/test_current_shape.py": "the index row `show` reads, while current",
    "tests/app/cli/test_readme_commands.py": "the README's command list against the argparse tree",
    "tests/app/cli/test_start_imports.py": "what each CLI command imports at start",
    "tests/app/cli/test_sync_messages.py": "every sync message of the CLI names its runbook entry",
    "tests/app/gui/capture/test_palettes.py": "the capture window's pieces in every palette",
    "tests/app/gui/journal/test_current_scope.py": "the journal window's current-project scope",
    "tests/app/gui/journal/test_defaults.py": "what the journal window opens on and keeps",
    "tests/app/gui/journal/test_import.py": "import dialog, confirming imports, outcome figures",
    "tests/app/gui/journal/test_keyboard.py": "the journal window from the keyboard alone",
    "tests/app/gui/journal/test_lifecycle.py": "soft delete, restore and history from the keys",
    "tests/app/gui/journal/test_live_updates.py": "the window following commits by any writer",
    "tests/app/gui/journal/test_outside_catch_up.py": "reloads after another index catch-up",
    "tests/app/gui/journal/test_paging.py": "list model, bridge and index snapshots paging",
    "tests/app/gui/journal/test_sync_conflicts.py": "a real sync conflict shown and resolved",
    "tests/app/setup_clients/test_setup_calls.py": "the setup calls printed for a user to repeat",
    "tests/app/test_app_journal_not_a_folder.py": "`decision-journal app` on a file, not a folder",
    "tests/app/test_leak_guard.py": "the leak guard of tests/app/conftest.py names where",
    "tests/app/test_quit_answers.py": "the tray's Quit while an agent waits for an answer",
    "tests/app/test_sync_quit.py": "quitting while a sync waits on the remote",
    "tests/app/test_sync_refused.py": "automatic sync against a tampered remote, as shown",
    "tests/app/test_sync_status_text.py": "sync's state in the tray and the status bar",
    "tests/core/store/test_runbook_errors.py": "every runbook entry a message names exists",
    "tests/core/sync/test_runbook_entries.py": "every sync error names a complete runbook entry",
    # One file for a package's modules that share one set of fixtures and one contract.
    "tests/core/exporters/test_exporters.py": "each export format, progress and staging",
    "tests/core/outcomes/test_outcomes.py": "verdict, reward, signals and rule scores together",
    "tests/core/decider/test_decider.py": "predictions to demotion through the real capture",
    # Byte compatibility with Go, against vectors and a profile Go itself produced.
    "tests/core/gocompat/test_go_compat.py": "record bytes and identities as Go writes them",
    "tests/core/profile/test_go_compat.py": "a profile equal to an independent Go derivation",
}
"""Test files under tests/core and tests/app named for no module, and what each tests."""

TESTED_ELSEWHERE: dict[str, str] = {
    # Each module, and the test file that tests it: a larger unit's tests (a dialog's helpers
    # through the dialog), the real process (CLI commands, hooks, setup), or the integration
    # and real-client tests where only the whole shows the behaviour (sync against a remote).
    # app
    "app/autostart.py": "tests/app/test_tray.py",
    # app/cli
    "app/cli/agent_cmds.py": "tests/integration/test_setup_clients.py",
    "app/cli/app_cmds.py": "tests/app/test_app_journal_not_a_folder.py",
    "app/cli/app_notice.py": "tests/integration/test_app_e2e.py",
    "app/cli/ask_flow.py": "tests/integration/test_ask_cli.py",
    "app/cli/capture_cmds.py": "tests/integration/test_ask_cli.py",
    "app/cli/decider_cmds.py": "tests/integration/test_cli_decider.py",
    "app/cli/export_cmds.py": "tests/integration/test_cli_export_formats.py",
    "app/cli/filter_args.py": "tests/integration/test_cli_journal.py",
    "app/cli/help_cmds.py": "tests/integration/test_cli_first_run.py",
    "app/cli/import_cmds.py": "tests/integration/test_cli_import.py",
    "app/cli/journal_cmds.py": "tests/integration/test_cli_sync_conflict_shown.py",
    "app/cli/outcome_cmds.py": "tests/integration/test_cli_import.py",
    "app/cli/profile_cmds.py": "tests/integration/test_cli_profile.py",
    "app/cli/redact_cmds.py": "tests/integration/test_cli_redaction.py",
    "app/cli/render.py": "tests/integration/test_cli_local_times.py",
    "app/cli/repair_cmds.py": "tests/integration/test_cli_store_failures.py",
    "app/cli/sync_cmds.py": "tests/integration/test_sync_two_machines.py",
    "app/cli/terminal_ask.py": "tests/integration/test_ask_cli.py",
    # app
    "app/frozen.py": "tests/packaging/test_frozen_runtime.py",
    # app/gui/capture
    "app/gui/capture/rationale_page.py": "tests/app/gui/capture/test_window.py",
    "app/gui/capture/request.py": "tests/app/gui/capture/test_window.py",
    # app/gui/journal
    "app/gui/journal/bridge.py": "tests/app/gui/journal/test_live_updates.py",
    "app/gui/journal/conflict_actions.py": "tests/app/gui/journal/test_sync_conflicts.py",
    "app/gui/journal/conflict_jobs.py": "tests/app/gui/journal/test_sync_conflicts.py",
    "app/gui/journal/conflict_view.py": "tests/app/gui/journal/test_sync_conflicts.py",
    "app/gui/journal/decision_delegate.py": "tests/app/gui/journal/test_sync_conflicts.py",
    "app/gui/journal/decision_details.py": "tests/app/gui/journal/test_defaults.py",
    "app/gui/journal/decision_dialogs.py": "tests/app/gui/journal/test_lifecycle.py",
    "app/gui/journal/decision_list_model.py": "tests/app/gui/journal/test_filter_bar.py",
    "app/gui/journal/export_formats.py": "tests/app/gui/journal/test_export_dialog.py",
    "app/gui/journal/formatting.py": "tests/app/gui/journal/test_defaults.py",
    "app/gui/journal/history_diff.py": "tests/app/gui/journal/test_history_view.py",
    "app/gui/journal/import_actions.py": "tests/app/gui/journal/test_import.py",
    "app/gui/journal/inspector.py": "tests/app/gui/journal/test_defaults.py",
    "app/gui/journal/outcome_tables.py": "tests/app/gui/journal/test_import.py",
    "app/gui/journal/panel_updates.py": "tests/app/gui/journal/test_profile_panel.py",
    "app/gui/journal/requests.py": "tests/app/gui/journal/test_current_scope.py",
    "app/gui/journal/sync_status.py": "tests/app/test_sync_refused.py",
    "app/gui/journal/transfer_jobs.py": "tests/app/gui/journal/test_export_dialog.py",
    "app/gui/journal/view.py": "tests/app/gui/journal/test_edit_dialog.py",
    "app/gui/journal/window_menus.py": "tests/app/gui/journal/test_keyboard.py",
    # app/gui/questions
    "app/gui/questions/question_panel.py": "tests/app/gui/questions/test_window.py",
    # app/gui/widgets
    "app/gui/widgets/byte_counter.py": "tests/app/gui/capture/test_window.py",
    "app/gui/widgets/focus_ring.py": "tests/app/gui/capture/test_palettes.py",
    "app/gui/widgets/icons.py": "tests/app/test_tray.py",
    "app/gui/widgets/indicators.py": "tests/app/gui/capture/test_palettes.py",
    "app/gui/widgets/labels.py": "tests/app/gui/capture/test_window.py",
    "app/gui/widgets/message_bar.py": "tests/app/gui/journal/test_edit_dialog.py",
    "app/gui/widgets/palette.py": "tests/app/gui/capture/test_palettes.py",
    "app/gui/widgets/screen_fit.py": "tests/app/gui/journal/test_edit_dialog.py",
    "app/gui/widgets/show_folder.py": "tests/app/gui/journal/test_export_dialog_look.py",
    "app/gui/widgets/window_behaviour.py": "tests/app/gui/capture/test_window_context.py",
    # app/hooks
    "app/hooks/ask_user_question.py": "tests/app/hooks/test_pending_answer.py",
    "app/hooks/claude_code.py": "tests/integration/test_hooks_claude_code.py",
    "app/hooks/clients.py": "tests/app/hooks/test_pending_answer.py",
    "app/hooks/codex.py": "tests/integration/test_hooks_codex.py",
    "app/hooks/copilot.py": "tests/integration/test_hooks_clients.py",
    "app/hooks/cursor.py": "tests/integration/test_hooks_clients.py",
    "app/hooks/deny_text.py": "tests/integration/test_hooks_clients.py",
    "app/hooks/event.py": "tests/integration/test_hooks_clients.py",
    "app/hooks/gating.py": "tests/integration/test_hooks_clients.py",
    "app/hooks/gemini.py": "tests/integration/test_hooks_clients.py",
    "app/hooks/opencode.py": "tests/integration/test_hooks_clients.py",
    "app/hooks/question_records.py": "tests/integration/test_hooks_ask_window.py",
    "app/hooks/qwen.py": "tests/integration/test_hooks_clients.py",
    # app/ipc
    "app/ipc/connection.py": "tests/app/ipc/test_peer.py",
    "app/ipc/events.py": "tests/app/ipc/test_server.py",
    "app/ipc/instance_lock.py": "tests/integration/test_app_e2e.py",
    "app/ipc/io_loop.py": "tests/app/ipc/test_server.py",
    "app/ipc/listener.py": "tests/app/ipc/test_server.py",
    "app/ipc/peercred.py": "tests/app/ipc/test_server.py",
    "app/ipc/policy.py": "tests/app/ipc/test_peer.py",
    "app/ipc/requests.py": "tests/app/ipc/test_server.py",
    # app
    "app/launch.py": "tests/integration/test_hooks_ask_window.py",
    # app/mcp
    "app/mcp/listing.py": "tests/app/mcp/test_front.py",
    "app/mcp/present.py": "tests/integration/test_mcp_tools.py",
    "app/mcp/schemas.py": "tests/app/mcp/test_arguments.py",
    # app/setup_clients
    "app/setup_clients/claude_code.py": "tests/integration/test_setup_clients.py",
    "app/setup_clients/codex.py": "tests/integration/test_setup_clients.py",
    "app/setup_clients/codex_app_server.py": "tests/clients/test_codex.py",
    "app/setup_clients/codex_trust.py": "tests/integration/test_setup_clients.py",
    "app/setup_clients/command.py": "tests/app/setup_clients/test_setup_calls.py",
    "app/setup_clients/context.py": "tests/app/setup_clients/test_setup_calls.py",
    "app/setup_clients/copilot.py": "tests/integration/test_setup_clients.py",
    "app/setup_clients/copilot_trust.py": "tests/clients/test_copilot.py",
    "app/setup_clients/cursor.py": "tests/integration/test_setup_clients.py",
    "app/setup_clients/files.py": "tests/app/setup_clients/test_toml_table.py",
    "app/setup_clients/gemini.py": "tests/integration/test_setup_clients.py",
    "app/setup_clients/gemini_trust.py": "tests/clients/test_gemini.py",
    "app/setup_clients/json_merge.py": "tests/integration/test_setup_clients.py",
    "app/setup_clients/opencode.py": "tests/integration/test_setup_qwen_opencode.py",
    "app/setup_clients/qwen.py": "tests/integration/test_setup_qwen_opencode.py",
    "app/setup_clients/qwen_trust.py": "tests/clients/test_qwen.py",
    "app/setup_clients/runner.py": "tests/app/setup_clients/test_setup_calls.py",
    "app/setup_clients/timeouts.py": "tests/integration/test_setup_clients.py",
    "app/setup_clients/vscode.py": "tests/integration/test_setup_clients.py",
    # app
    "app/workers.py": "tests/app/test_capture_controller.py",
    # core/bulk
    "core/bulk/record_read.py": "tests/core/bulk/test_fast_read.py",
    "core/bulk/named_tuple.py": "tests/app/hooks/test_pending_answer.py",
    "core/bulk/profile_facts.py": "tests/core/bulk/test_parallel_read.py",
    # core/decider
    "core/decider/fold.py": "tests/core/decider/test_route.py",
    "core/decider/policy.py": "tests/core/decider/test_route.py",
    "core/decider/principles.py": "tests/core/decider/test_decider.py",
    "core/decider/score.py": "tests/core/decider/test_decider.py",
    # core/exporters
    "core/exporters/csv_export.py": "tests/core/exporters/test_exporters.py",
    "core/exporters/decision_log.py": "tests/core/exporters/test_exporters.py",
    "core/exporters/json_export.py": "tests/core/exporters/test_exporters.py",
    "core/exporters/madr.py": "tests/core/exporters/test_exporters.py",
    "core/exporters/markdown_text.py": "tests/core/exporters/test_exporters.py",
    "core/exporters/staging.py": "tests/core/exporters/test_exporters.py",
    "core/exporters/stand_in.py": "tests/core/exporters/test_exporters.py",
    # core/importers
    "core/importers/answers.py": "tests/core/importers/test_agent_questions.py",
    "core/importers/base.py": "tests/core/importers/sources/test_claude_code.py",
    "core/importers/confirm.py": "tests/core/importers/test_engine.py",
    "core/importers/detect.py": "tests/core/importers/test_engine.py",
    "core/importers/locate.py": "tests/core/importers/sources/test_madr.py",
    "core/importers/markdown.py": "tests/core/importers/sources/test_decisions_md.py",
    "core/importers/ndjson_source.py": "tests/core/importers/sources/test_goal_jsonl.py",
    "core/importers/notes_sink.py": "tests/core/importers/sources/test_memory_journal.py",
    "core/importers/shaping.py": "tests/core/importers/sources/test_decisions_md.py",
    # core/importers/sources
    "core/importers/sources/claude_transcript.py": (
        "tests/core/importers/sources/test_claude_code.py"
    ),
    "core/importers/sources/decider_policy.py": "tests/core/importers/sources/test_decider.py",
    "core/importers/sources/madr_parse.py": "tests/core/importers/sources/test_madr.py",
    # core/importers
    "core/importers/watch.py": "tests/core/importers/test_engine.py",
    # core/index
    "core/index/index_file.py": "tests/core/index/test_columns.py",
    "core/index/query.py": "tests/core/index/test_journal_index.py",
    "core/index/rows.py": "tests/core/index/test_journal_index.py",
    "core/index/scan.py": "tests/core/index/test_journal_index.py",
    "core/index/scrub.py": "tests/core/store/test_redaction_sweep.py",
    "core/index/statements.py": "tests/core/index/test_journal_index.py",
    # core/ipc
    "core/ipc/questions.py": "tests/app/gui/questions/test_window.py",
    "core/ipc/runtime_paths.py": "tests/core/ipc/test_protocol.py",
    # core
    "core/limits.py": "tests/core/bulk/test_record_view.py",
    # core/messages
    "core/messages/language.py": "tests/core/record/test_summary.py",
    "core/messages/runbook.py": "tests/core/store/test_runbook_errors.py",
    # core/outcomes
    "core/outcomes/reward.py": "tests/core/outcomes/test_outcomes.py",
    "core/outcomes/rule_scores.py": "tests/core/outcomes/test_outcomes.py",
    "core/outcomes/signals.py": "tests/core/outcomes/test_outcomes.py",
    "core/outcomes/verdict.py": "tests/core/outcomes/test_outcomes.py",
    # core/record
    "core/record/codec.py": "tests/core/record/test_models.py",
    "core/record/corrections.py": "tests/core/decider/test_decider.py",
    "core/record/identity.py": "tests/core/agents/test_notes.py",
    "core/record/origin.py": "tests/core/decider/test_decider.py",
    "core/record/redact_record.py": "tests/core/store/test_redaction_sweep.py",
    "core/record/redaction_prose.py": "tests/core/record/test_redaction.py",
    "core/record/redaction_rules.py": "tests/core/record/test_redaction.py",
    "core/record/redaction_values.py": "tests/core/record/test_redaction_structure.py",
    "core/record/redaction_vendors.py": "tests/core/record/test_redaction_families.py",
    "core/record/shape.py": "tests/core/bulk/test_parallel_read.py",
    # core/store
    "core/store/append_log.py": "tests/core/outcomes/test_outcomes.py",
    "core/store/location.py": "tests/app/hooks/test_entry.py",
    "core/store/record_files.py": "tests/core/index/test_journal_index.py",
    "core/store/locking.py": "tests/core/store/test_temp_sweep.py",
    # core/sync
    "core/sync/bounds.py": "tests/integration/test_sync_hostile_remote.py",
    "core/sync/incoming.py": "tests/integration/test_sync_two_machines.py",
    "core/sync/manifests.py": "tests/core/sync/test_authenticity.py",
    "core/sync/paths.py": "tests/core/sync/test_conflicts.py",
    "core/sync/report.py": "tests/core/sync/test_authenticity.py",
    "core/sync/status.py": "tests/integration/test_sync_full_disk.py",
}
"""Modules of core and app without a test file of their own, and the file that tests each."""


def _is_test_file_of(test: Path, module: Path) -> bool:
    """Whether `test` is the mirror test file of `module`: `test_<module>.py` or
    `test_<module>_<aspect>.py` in the folder mirroring the module's."""
    mirror = ROOT / "tests" / module.parent.relative_to(ROOT)
    name = test.stem
    return test.parent == mirror and (
        name == f"test_{module.stem}" or name.startswith(f"test_{module.stem}_")
    )


def _unit_test_files() -> list[Path]:
    return sorted(path for folder in UNIT_TESTS for path in (ROOT / folder).rglob("test_*.py"))


def _module_of(test: Path, modules: dict[tuple[Path, str], Path]) -> Path | None:
    """The module a test file is named for: the longest name that fits (`test_pending_index.py`
    is `pending_index`'s, not an aspect of `pending`). `modules` maps (mirror folder, name)."""
    words = test.stem.removeprefix("test_").split("_")
    for size in range(len(words), 0, -1):
        module = modules.get((test.parent, "_".join(words[:size])))
        if module is not None:
            assert _is_test_file_of(test, module)
            return module
    return None


MODULES = [*python_modules("core"), *python_modules("app")]
BY_MIRROR = {
    (ROOT / "tests" / module.parent.relative_to(ROOT), module.stem): module for module in MODULES
}
"""Each module by the folder its test file is in and its name."""
TESTS = _unit_test_files()


def test_every_module_has_its_test_file() -> None:
    tested = {module for test in TESTS if (module := _module_of(test, BY_MIRROR)) is not None}
    missing = [
        f"{relative(module)}: add tests/{relative(module.parent)}/test_{module.stem}.py, or, "
        f"when another file tests it, an entry in TESTED_ELSEWHERE in {HERE}: "
        f'"{relative(module)}": "tests/<the file that tests it>.py"'
        for module in MODULES
        if module not in tested and relative(module) not in TESTED_ELSEWHERE
    ]
    assert missing == [], "modules without a test file:\n  " + "\n  ".join(missing)


def test_every_test_file_is_named_for_its_module() -> None:
    unnamed = [
        f"{relative(test)}: rename it test_<module>.py for the module of "
        f"{relative(test.parent).removeprefix('tests/')}/ it tests, or list it in FEATURE_TESTS "
        f"in {HERE} with what it tests"
        for test in TESTS
        if _module_of(test, BY_MIRROR) is None and relative(test) not in FEATURE_TESTS
    ]
    assert unnamed == [], "test files named for no module:\n  " + "\n  ".join(unnamed)


def test_the_lists_name_only_what_exists_and_needs_an_entry() -> None:
    stale = [
        f"FEATURE_TESTS: {test} no longer exists"
        for test in FEATURE_TESTS
        if not (ROOT / test).is_file()
    ]
    stale += [
        f"FEATURE_TESTS: {test} is now named for its module; remove its entry"
        for test in FEATURE_TESTS
        if (ROOT / test).is_file() and _module_of(ROOT / test, BY_MIRROR) is not None
    ]
    named = {module for test in TESTS if (module := _module_of(test, BY_MIRROR)) is not None}
    for module, where in TESTED_ELSEWHERE.items():
        if not (ROOT / module).is_file():
            stale.append(f"TESTED_ELSEWHERE: {module} no longer exists (moved or renamed?)")
        elif ROOT / module in named:
            stale.append(f"TESTED_ELSEWHERE: {module} has its own test file; remove its entry")
        if not (ROOT / where).is_file():
            stale.append(f"TESTED_ELSEWHERE: {module} names {where}, which does not exist")
    assert stale == [], f"entries in {HERE} to mend:\n  " + "\n  ".join(stale)


def test_a_test_file_counts_for_its_module_and_its_aspects() -> None:
    module = ROOT / "core/store/safefs.py"
    folder = ROOT / "tests/core/store"
    assert _is_test_file_of(folder / "test_safefs.py", module)
    assert _is_test_file_of(folder / "test_safefs_read.py", module)
    assert not _is_test_file_of(folder / "test_safefsx.py", module)
    assert not _is_test_file_of(ROOT / "tests/core/sync/test_safefs.py", module)

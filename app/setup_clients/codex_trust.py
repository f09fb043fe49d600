"""Whether Codex will run our PreToolUse hook, and trusting it when the user asks us to.

Codex runs a non-managed command hook only when `~/.codex/config.toml` holds
`[hooks.state."<key>"] trusted_hash` equal to the hook's current hash (`<key>` is the hook's
source file, event and position: `…/hooks.json:pre_tool_use:0:0`); a new or edited hook is
skipped without a word, so gating would be silently off. The user trusts it in Codex (`/hooks`,
or "Trust all and continue" when Codex starts); `--trust-hook` does the same through Codex's
own app server (see `codex_app_server` for why we never compute the hash ourselves).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.setup_clients.codex_app_server import AppServer, CodexUnavailable, app_server

CODEX = "codex"
HOOK_EVENT = "preToolUse"
HOOK_MARKER = " hook codex"
RUNS = ("trusted", "managed")
HOW_TO_TRUST = (
    "Codex runs a new or changed hook only once you trust it: start `codex`, type /hooks and "
    "trust the decision-journal PreToolUse hook (or answer 'Trust all and continue' when Codex "
    "asks at start-up), or run `decision-journal setup codex --write --trust-hook`. "
    "`decision-journal setup codex --check` tells whether Codex will run it."
)
STATUS_WORDS = {
    "untrusted": "is not trusted yet",
    "modified": "changed since you trusted it",
}


@dataclass(frozen=True, slots=True)
class HookTrust:
    """Codex's view of one of our hook entries."""

    key: str
    trust_status: str
    enabled: bool
    current_hash: str
    source_path: str

    @property
    def runs(self) -> bool:
        return self.enabled and self.trust_status in RUNS

    def problem(self) -> str:
        """Why Codex will not run it, in words, or "" when it will."""
        if not self.enabled:
            return (
                f"Codex will not run the hook in {self.source_path}: it is disabled "
                "(enable it again with /hooks in Codex)"
            )
        if self.runs:
            return ""
        words = STATUS_WORDS.get(self.trust_status, f"has trust status {self.trust_status!r}")
        return (
            f"Codex will not run the hook in {self.source_path}: it {words}, so edits are not "
            "blocked while a decision is pending. Trust it with /hooks in Codex, or run "
            "`decision-journal setup codex --write --trust-hook`"
        )


def find_codex(explicit: str | None = None) -> str | None:
    """The Codex program: `explicit` when given, else `codex` on PATH."""
    if explicit:
        return explicit
    return shutil.which(CODEX)


def _hook(entry: Mapping[str, Any]) -> HookTrust | None:
    command = entry.get("command")
    if entry.get("eventName") != HOOK_EVENT or not isinstance(command, str):
        return None
    if not command.endswith(HOOK_MARKER):
        return None
    return HookTrust(
        key=str(entry.get("key", "")),
        trust_status=str(entry.get("trustStatus", "")),
        enabled=bool(entry.get("enabled", False)),
        current_hash=str(entry.get("currentHash", "")),
        source_path=str(entry.get("sourcePath", "")),
    )


def our_hooks(server: AppServer, cwd: str) -> list[HookTrust]:
    """Our PreToolUse hook entries as Codex loads them for a session in `cwd`.

    Raises:
        CodexUnavailable: the answer is not the `hooks/list` shape we know.
    """
    result = server.request("hooks/list", {"cwds": [cwd]})
    try:
        entries = [hook for item in result["data"] for hook in item["hooks"]]
    except (KeyError, TypeError) as exc:
        raise CodexUnavailable(f"codex hooks/list answered an unknown shape ({exc})") from exc
    return [hook for hook in map(_hook, entries) if hook is not None]


def _state_key_path(key: str) -> str:
    """The dotted key path Codex's own /hooks screen writes the trusted hash under."""
    if '"' in key or "\\" in key:
        raise CodexUnavailable(
            f"cannot name the hook key {key!r} in a key path; trust it in /hooks"
        )
    return f'hooks.state."{key}".trusted_hash'


def trust(server: AppServer, hooks: list[HookTrust]) -> None:
    """Records each enabled hook's current hash as trusted, the way `/hooks` does."""
    edits = [
        {
            "keyPath": _state_key_path(hook.key),
            "value": hook.current_hash,
            "mergeStrategy": "upsert",
        }
        for hook in hooks
        if hook.enabled and not hook.runs
    ]
    if edits:
        server.request("config/batchWrite", {"edits": edits, "reloadUserConfig": True})


@dataclass(frozen=True, slots=True)
class TrustReport:
    """What `--check` and `--trust-hook` found: the hooks Codex sees, and problems in words."""

    hooks: list[HookTrust]
    problems: list[str]


def unlisted(path: Path, *, project: bool) -> str:
    """Why Codex may not list a hook we configured in `path`, in words."""
    if not project:
        return (
            f"Codex does not load the hook in {path}: check that hooks are not turned off "
            "([features] hooks = false in config.toml or requirements.toml)"
        )
    return (
        f"Codex does not load the hook in {path}: trust the folder {path.parent.parent} when "
        "Codex asks (it ignores a project's .codex/ folder until then)"
    )


def inspect(
    codex: str,
    cwd: str,
    configured: Mapping[Path, str],
    *,
    grant: bool = False,
    env: Mapping[str, str] | None = None,
) -> TrustReport:
    """Asks Codex about our hook in the `configured` files; with `grant`, trusts it first.

    Args:
        codex: the Codex program.
        cwd: the folder a session would start in (project hooks load only there).
        configured: each hooks file holding our hook, with the words to say when Codex does
            not list it at all (see `unlisted`).
        grant: trust our enabled hooks that Codex would skip.
        env: the environment for Codex (HOME decides whose config it reads).

    Raises:
        CodexUnavailable: Codex cannot be started or asked.
    """
    with app_server(codex, cwd, env) as server:
        hooks = our_hooks(server, cwd)
        if grant and any(not hook.runs for hook in hooks):
            trust(server, hooks)
            hooks = our_hooks(server, cwd)
    problems = [problem for problem in (hook.problem() for hook in hooks) if problem]
    listed = {os.path.realpath(hook.source_path) for hook in hooks}
    problems += [why for path, why in configured.items() if os.path.realpath(path) not in listed]
    return TrustReport(hooks, problems)

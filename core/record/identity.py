"""Project identity, capture fingerprints and the deterministic decision ID.

Each function reproduces the reference byte for byte, so a decision captured here and one
captured by KernForge for the same fork share one ID and deduplicate.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sys
from dataclasses import dataclass
from typing import Protocol

from core.gocompat.gojson import dumps_compact
from core.gocompat.gotime import GoTime
from core.gocompat.text import go_lower, go_trim

_FNV_OFFSET = 2166136261
_FNV_PRIME = 16777619


def short_stable_id(text: str) -> str:
    """32-bit FNV-1a of lower(trim(text)) as 8 hex digits."""
    normalized = go_lower(go_trim(text))
    if not normalized:
        now = GoTime.now().to_datetime()
        return now.strftime("%H%M%S") + f"{now.microsecond // 1000:03d}"
    value = _FNV_OFFSET
    for byte in normalized.encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return f"{value:08x}"


def task_fingerprint(session_id: str, problem: str) -> str:
    return "task-" + short_stable_id(session_id + "\x00" + problem)


class _OptionLike(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def label(self) -> str: ...


def evidence_fingerprint(options: list[_OptionLike], evidence_refs: list[str]) -> str:
    """Order-independent hash of the option set and the evidence references."""
    parts = sorted(go_lower(go_trim(o.id)) + "=" + go_lower(go_trim(o.label)) for o in options)
    refs = sorted(ref for ref in (go_trim(r) for r in evidence_refs) if ref)
    digest = hashlib.sha256("\x00".join(parts + refs).encode("utf-8", "surrogatepass"))
    return "evidence-" + digest.hexdigest()[:32]


def decision_id(
    *,
    project_id: str,
    task_fp: str,
    evidence_fp: str,
    problem: str,
    options: list[_OptionLike],
) -> str:
    """The structured-JSON hash ID; falls back to time plus randomness without fingerprints."""
    if not go_trim(task_fp) and not go_trim(evidence_fp):
        now = GoTime.now()
        stamp = now.to_datetime().strftime("%Y%m%d-%H%M%S")
        return f"decision-{stamp}.{now.unix_ns % 1_000_000_000:09d}-{secrets.token_hex(6)}"
    pairs = sorted((go_trim(o.id), go_trim(o.label)) for o in options)
    payload = {
        "project_id": go_trim(project_id),
        "task_fingerprint": go_trim(task_fp),
        "evidence_fingerprint": go_trim(evidence_fp),
        "problem": go_trim(problem),
        "options": [{"id": oid, "label": label} for oid, label in pairs],
    }
    digest = hashlib.sha256(dumps_compact(payload).encode("utf-8"))
    return "decision-" + digest.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class ProjectIdentity:
    project_id: str
    workspace_hash: str
    alias: str
    workspace: str
    canonical_path: str


def canonical_workspace_path(root: str) -> str:
    """Absolute, symlinks resolved where possible, cleaned, '/'-separated, lowercased on Windows."""
    trimmed = go_trim(root)
    if not trimmed:
        return ""
    path = os.path.abspath(trimmed)
    try:
        path = os.path.realpath(path, strict=True)
    except OSError:
        path = os.path.normpath(path)
    path = path.replace(os.sep, "/")
    if sys.platform == "win32":
        path = path.lower()
    return path


def project_identity(root: str) -> ProjectIdentity:
    canonical = canonical_workspace_path(root)
    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
    base = canonical.rstrip("/").rsplit("/", 1)[-1] if canonical else ""
    alias = "workspace" if base in ("", ".", "/") else base
    return ProjectIdentity(
        project_id="project-" + digest[:16],
        workspace_hash=digest,
        alias=alias,
        workspace=go_trim(root),
        canonical_path=canonical,
    )


def redacted_stable_id(prefix: str, original: str) -> str:
    """Replaces a secret-looking identifier with a stable, non-secret one."""
    cleaned = prefix.strip("-_.") or "redacted"
    digest = hashlib.sha256(go_trim(original).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{cleaned}-{digest[:16]}"

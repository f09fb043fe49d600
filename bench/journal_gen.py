"""Generates realistic synthetic journals for the benchmarks (never used by the app)."""

from __future__ import annotations

import random
from pathlib import Path

from core.gocompat.gotime import GoTime
from core.record.codec import encode_record
from core.record.identity import evidence_fingerprint, project_identity, task_fingerprint
from core.record.models import DecisionRecord, Option, Provenance, RejectedReason
from core.record.normalize import normalize_record
from core.store.decisions import derive_record_id
from core.store.safefs import ensure_private_dir

KINDS = ["storage_backend", "cache_policy", "api_shape", "error_handling", "concurrency", "testing"]
DOMAINS = ["storage", "caching", "http", "auth", "ui", "build", "cli", "database"]
WORDS = (
    "index cache lock queue retry batch stream parser schema migration adapter worker snapshot "
    "journal socket widget signal buffer codec token policy layer module"
).split(" ")


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def synthetic_record(rng: random.Random, index: int, projects: int = 40) -> DecisionRecord:
    """One plausible decision; deterministic for a given seed and index."""
    project = project_identity(f"/home/dev/src/project-{index % projects}")
    count = rng.randint(2, 4)
    options = [
        Option(
            id=f"option-{n}",
            label=f"Approach {n} {_sentence(rng, 2)}",
            description=_sentence(rng, 12),
            pros=[_sentence(rng, 4)],
            cons=[_sentence(rng, 4)],
            recommended=n == 0,
            order=n + 1,
            source="model",
        )
        for n in range(count)
    ]
    selected = rng.randrange(count)
    problem = f"Decide how to handle {_sentence(rng, 8)} (case {index})"
    session = f"session-{index // 7}"
    refs = [f"src/{rng.choice(WORDS)}.py:{rng.randint(1, 400)}"]
    created = GoTime(1_760_000_000_000_000_000 + index * 1_000_000_007)
    record = DecisionRecord(
        schema_version=1,
        revision=1,
        created_at=created,
        updated_at=created,
        session_id=session,
        project_id=project.project_id,
        project_alias=project.alias,
        workspace=project.workspace,
        workspace_hash=project.workspace_hash,
        domains=rng.sample(DOMAINS, 2),
        languages=["python"],
        decision_kind=rng.choice(KINDS),
        risk_level=rng.choice(["low", "medium", "high"]),
        problem=problem,
        task_fingerprint=task_fingerprint(session, problem),
        evidence_fingerprint=evidence_fingerprint(options, refs),
        options=options,
        recommended_option_id="option-0",
        selected_option_id=f"option-{selected}",
        selection_reason_raw=_sentence(rng, 14),
        rejected_reasons=[
            RejectedReason(option_id=o.id, reason=_sentence(rng, 10), source="user")
            for o in options
            if o.id != f"option-{selected}"
        ],
        evidence_refs=refs,
        tags=[rng.choice(WORDS)],
        detector_confidence=round(rng.uniform(0.65, 1.0), 2),
        status="completed",
        provenance=Provenance(
            options="model", selection="user", rationale="user", summary="runtime"
        ),
    )
    record.id = derive_record_id(record)
    return normalize_record(record)


def write_journal(root: Path, count: int, seed: int = 7) -> list[str]:
    """Writes records straight to records/ (no fsync) so large journals generate quickly."""
    records_dir = root / "records"
    ensure_private_dir(root, records_dir)
    rng = random.Random(seed)
    ids = []
    for index in range(count):
        record = synthetic_record(rng, index)
        path = records_dir / f"{record.id}.json"
        path.write_bytes(encode_record(record))
        path.chmod(0o600)
        ids.append(record.id)
    return ids

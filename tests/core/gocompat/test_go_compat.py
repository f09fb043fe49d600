"""Byte compatibility with Go's encoding/json, checked against vectors Go itself produced.

tests/data/go_reference/main.go generated tests/data/go_vectors.json with a real Go toolchain.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.record.codec import compact_record, encode_record, parse_record
from core.record.identity import (
    decision_id,
    evidence_fingerprint,
    short_stable_id,
    task_fingerprint,
)

VECTORS = json.loads((Path(__file__).parents[2] / "data" / "go_vectors.json").read_text())


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_record_round_trips_to_the_same_bytes(vector: dict[str, str]) -> None:
    record = parse_record(vector["indented"].encode(), what=vector["name"])
    assert encode_record(record).decode() == vector["indented"]
    assert compact_record(record).decode() == vector["compact"]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_identity_matches_go(vector: dict[str, str]) -> None:
    record = parse_record(vector["indented"].encode(), what=vector["name"])
    assert task_fingerprint(vector["session"], record.problem) == vector["task_fingerprint"]
    assert (
        evidence_fingerprint(record.options, record.evidence_refs)
        == (vector["evidence_fingerprint"])
    )
    assert (
        decision_id(
            project_id=record.project_id,
            task_fp=record.task_fingerprint,
            evidence_fp=record.evidence_fingerprint,
            problem=record.problem,
            options=record.options,
        )
        == vector["decision_id"]
    )
    assert short_stable_id(vector["short_stable_in"]) == vector["short_stable"]


def test_fnv1a_known_vector() -> None:
    assert short_stable_id("hello") == "4f9f2cab"
    assert short_stable_id("  HELLO ") == "4f9f2cab"

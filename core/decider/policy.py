"""What no profile may ever answer: the user-editable routing policy in `decider/policy.json`.

Why a file the user edits: which words make a question too risky to answer for them is the
user's call, not ours, so the list is data. The file is written with a seed list the first time
it is needed (data loss, security, credentials, licences, money, production, deletion and
migration words, in English and Korean) and read strictly afterwards: a file that cannot be
read is an error, never an empty list, because an empty list would widen what may be answered.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.decider.fold import fold_name
from core.errors import JournalDamaged
from core.store.safefs import atomic_write, ensure_private_dir, read_regular_file

DECIDER_DIR = "decider"
POLICY_FILE = "policy.json"
POLICY_MAX_BYTES = 256 * 1024
PHRASES_MAX = 2000
PHRASE_MAX = 200

SEED_UNLOCK_PHRASES: tuple[str, ...] = (
    # data loss and deletion
    "data loss",
    "lose data",
    "delete",
    "deletion",
    "drop table",
    "drop database",
    "truncate",
    "wipe",
    "purge",
    "erase",
    "irreversible",
    "데이터 손실",
    "삭제",
    "초기화",
    # security and credentials
    "security",
    "vulnerability",
    "credential",
    "password",
    "secret",
    "api key",
    "private key",
    "access token",
    "permission",
    "encryption",
    "보안",
    "취약점",
    "자격 증명",
    "비밀번호",
    "암호",
    "인증",
    "권한",
    # licences
    "licence",
    "license",
    "copyright",
    "라이선스",
    "라이센스",
    "저작권",
    # money
    "money",
    "payment",
    "billing",
    "invoice",
    "pricing",
    "결제",
    "비용",
    "요금",
    "청구",
    # production
    "production",
    "deploy to prod",
    "프로덕션",
    "운영 환경",
    "배포",
    # migration
    "migration",
    "migrate",
    "schema change",
    "마이그레이션",
    "이관",
)


@dataclass(frozen=True, slots=True)
class RoutingPolicy:
    """Folded names only; build one with `of` or `load_policy`."""

    unlock_phrases: tuple[str, ...] = ()
    hard_stops: tuple[str, ...] = ()
    human_only_projects: tuple[str, ...] = ()
    always_ask_kinds: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        unlock_phrases: Iterable[str] = SEED_UNLOCK_PHRASES,
        hard_stops: Iterable[str] = (),
        human_only_projects: Iterable[str] = (),
        always_ask_kinds: Iterable[str] = (),
    ) -> RoutingPolicy:
        def folded(items: Iterable[str]) -> tuple[str, ...]:
            return tuple(dict.fromkeys(f for f in map(fold_name, items) if f))

        return cls(
            folded(unlock_phrases),
            folded(hard_stops),
            folded(human_only_projects),
            folded(always_ask_kinds),
        )


_FIELDS = ("unlock_phrases", "hard_stops", "human_only_projects", "always_ask_kinds")


def seed_document() -> dict[str, Any]:
    return {
        "about": (
            "Questions that are always asked, whatever a kind's mode. Every entry compares "
            "after folding case, spaces, '-', '_' and punctuation; a phrase matches anywhere "
            "in the problem, header or an option."
        ),
        "unlock_phrases": list(SEED_UNLOCK_PHRASES),
        "hard_stops": [],
        "human_only_projects": [],
        "always_ask_kinds": [],
    }


def policy_path(journal_root: Path) -> Path:
    return Path(journal_root) / DECIDER_DIR / POLICY_FILE


def _damaged(message: str) -> JournalDamaged:
    return JournalDamaged(
        message + "; every question is asked until it is mended",
        anchor="decider-policy-damaged",
    )


def parse_policy(data: bytes, *, what: str) -> RoutingPolicy:
    """Strict: a JSON object whose known fields are lists of short strings."""
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _damaged(f"routing policy {what} is not valid JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise _damaged(f"routing policy {what} must be a JSON object")
    lists: dict[str, list[str]] = {}
    for name in _FIELDS:
        value = raw.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _damaged(f"routing policy {what}: {name} must be a list of strings")
        if len(value) > PHRASES_MAX:
            raise _damaged(
                f"routing policy {what}: {name} holds {len(value)} entries, limit {PHRASES_MAX}"
            )
        long = next((v for v in value if len(v) > PHRASE_MAX), None)
        if long is not None:
            raise _damaged(
                f"routing policy {what}: an entry of {name} is {len(long)} characters, "
                f"limit {PHRASE_MAX}"
            )
        lists[name] = value
    return RoutingPolicy.of(**lists)


def load_policy(journal_root: Path) -> RoutingPolicy:
    """The journal's policy; the seed file is written first when there is none."""
    root = Path(journal_root)
    path = policy_path(root)
    if not path.exists():
        ensure_private_dir(root, path.parent)
        text = json.dumps(seed_document(), ensure_ascii=False, indent=2) + "\n"
        atomic_write(root, path, text.encode("utf-8"))
    data = read_regular_file(root, path, POLICY_MAX_BYTES)
    return parse_policy(data, what=str(path))

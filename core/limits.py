"""Size and count limits of the record format, shared with the reference implementation."""

from __future__ import annotations

MIB = 1024 * 1024
KIB = 1024

RECORD_FILE_MAX = MIB
PROFILE_FILE_MAX = 64 * MIB
PENDING_FILE_MAX = 2 * MIB
IMPORT_TEXT_FILE_MAX = 8 * MIB
"""One decisions.md or ADR file an import reads: tens of thousands of rows."""
IMPORT_LINE_MAX = 16 * MIB
"""One line of a JSONL log an import reads (a transcript's line can hold a whole file)."""
IMPORT_JSON_ARRAY_MAX = 64 * MIB
"""One JSON array of records an import reads; a larger journal is imported as its folder, a
file per record."""

PROBLEM_MAX = 4096
REASON_MAX = 4096
CUSTOM_SELECTION_MAX = 1024
SUMMARY_MAX = 24 * KIB
WORKSPACE_MAX = 32 * KIB
KIND_MAX = 128
HEADER_MAX = 256

OPTION_ID_MAX = 128
OPTION_LABEL_MAX = 256
OPTION_DESCRIPTION_MAX = 2048
OPTION_DETAIL_ITEMS_MAX = 16
OPTION_DETAIL_MAX = 1024
OPTIONS_MIN = 2
OPTIONS_MAX = 4

DOMAINS_MAX = 32
LANGUAGES_MAX = 32
TAGS_MAX = 64
EVIDENCE_REFS_MAX = 64
LIST_ITEM_MAX = 512
EVIDENCE_REF_MAX = 2048
IDENTIFIER_MAX = 1024
REDACTION_PATTERNS_MAX = 64
REDACTION_PATTERN_MAX = 128

DECISION_ID_MAX = 160
CAPTURE_CONFIDENCE_MIN = 0.65
PROFILE_CONFIDENCE_MIN = 0.80

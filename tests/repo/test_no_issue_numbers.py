"""No issue-tracker numbers in the project's text: a reader of the code, docs or benches has no
tracker to look them up in, so each says what and why instead.

References into other projects' public trackers (`owner/repo#123`) are citations a reader can
follow and stay allowed.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.repo.tree import relative, text_files

ISSUE_REFERENCE = re.compile(
    r"\bissues?\s+#?\d+\b"  # "issue 17", "issue #19", "Issues 6"
    r"|(?<![\w#&/\"'-])#\d{1,5}\b(?![\w-])",  # a bare "#19"; not "owner/repo#1", "#000000"
    re.IGNORECASE,
)
ALLOWED = (
    # The decider importer's exclusion reason names the policy's personal-data pattern by its
    # place in the list: product wording, not a tracker.
    re.compile(r"personal-data pattern #\d+"),
)


def _references(line: str) -> list[str]:
    allowed = [span for rule in ALLOWED for span in (m.span() for m in rule.finditer(line))]
    return [
        match.group(0)
        for match in ISSUE_REFERENCE.finditer(line)
        if not any(start <= match.start() < end for start, end in allowed)
    ]


def test_reference_pattern_tells_issue_numbers_from_other_uses() -> None:
    assert _references("see issue #19, item 3") == ["issue #19"]
    assert _references("seen in the run of issue 17.") == ["issue 17"]
    assert _references("Targets (#20): p95") == ["#20"]
    assert _references('Role.Shadow: "#000000", PKCS#8 keys, toolu_07#1') == []
    assert _references("quoted in anthropics/claude-code#5319") == []
    assert _references("excluded: matches personal-data pattern #1") == []
    assert _references("## Heading, `#contracts` and #hashtag") == []


def test_no_text_file_refers_to_an_issue_number() -> None:
    found = [
        f"{relative(path)}:{number}: {reference!r}"
        for path in text_files()
        if path != Path(__file__).resolve()  # its examples above are what it looks for
        for number, line in enumerate(
            path.read_text(encoding="utf-8", errors="replace").splitlines(), 1
        )
        for reference in _references(line)
    ]
    assert found == [], (
        "issue numbers in the project's text (a reader has no tracker to look them up in); "
        "say what the reference stood for and why instead:\n  " + "\n  ".join(found)
    )

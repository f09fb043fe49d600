"""Whether the store's redaction would leave a record as it is, asked without redacting it.

Faster variant of `redact_record(record) == record` (`core.record.redact_record`) for a record
another machine sent: sync's admission asks it of every record a join receives, and almost none
holds a secret. `redact_record` redacts every free text and copies the record field by field;
here each text is only asked whether any rule would fire on it, a rule is looked up by the
keywords the text holds instead of testing every rule's keywords in turn, and a text answered
once in this process (a tag, a domain, a file reference) is answered from memory.

Why it is exact where it says True: `redact_text` runs its rules in order, each on the output of
the one before, and returns the text as it is, with nothing reported, when no rule replaced
anything. While no rule has fired every rule sees the original text, so "no rule fires on the
original text" is the same as "`redact_text` changes nothing and reports nothing". The rules,
their keyword scan and the early exit are `core.record.redaction`'s own objects, so a rule
added there is asked here too. `redact_record` then differs from its record only when a text
changed, a pattern was reported, or merging the record's own pattern names with nothing
changes them (they are deduplicated, case-insensitively).

False says only "ask the full rule". `tests/core/bulk/test_redaction_gate.py` holds the two
equal on generated texts and records, secrets included.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from core.record import redaction
from core.record.fields import FREE_TEXT, OPTION_FREE_TEXT
from core.record.models import DecisionRecord, Option
from core.record.redaction import EMPTY_REPORT, RedactionReport
from core.record.redaction_rules import Rule
from core.record.shape import RecordShape

_RECORD_TEXTS = tuple(name for name in FREE_TEXT if name in DecisionRecord.model_fields)
_OPTION_TEXTS = tuple(name for name in OPTION_FREE_TEXT if name in Option.model_fields)
"""The fields `redact_record` redacts (it skips names the model does not have)."""
_ANSWERED_MAX = 1 << 16
_answered: dict[str, bool] = {}
"""Text → whether no rule fires on it, for texts asked before (cleared when full)."""


def record_unchanged(record: RecordShape) -> bool:
    """True when `redact_record` would return this record unchanged; False: ask it.

    `record` may be the model or a bulk read's view of it (`core.bulk.record_view`): the same
    fields are read from either."""
    patterns = tuple(record.redaction.patterns)
    merged = RedactionReport(record.redaction.redacted, patterns).merge(EMPTY_REPORT)
    return merged.patterns == patterns and all(map(text_unchanged, _texts(record)))


def text_unchanged(text: str) -> bool:
    """Faster variant of `redact_text(text) == (text, EMPTY_REPORT)` (exact)."""
    if not text.strip():
        return True
    folded = text.casefold()
    if redaction._ANY_KEYWORD.search(folded) is None:
        return True  # the same early exit as `redact_text`
    verdict = _answered.get(text)
    if verdict is None:
        verdict = not _fires(text, folded)
        if len(_answered) >= _ANSWERED_MAX:
            _answered.clear()
        _answered[text] = verdict
    return verdict


def _fires(text: str, folded: str) -> bool:
    """Whether any rule `redact_text` would run on `text` replaces something in it (or names
    itself), each asked of the original text, in the pipeline's order."""
    rules, by_keyword, always = _index()
    present = redaction._keywords_in(folded)
    candidates = set(always)
    for keyword in present:
        candidates.update(by_keyword.get(keyword, ()))
    for position in sorted(candidates):
        rule = rules[position]
        if rule.confirm is not None and rule.confirm.search(folded) is None:
            continue
        if _replaces(rule, text):
            return True
    return False


def _replaces(rule: Rule, text: str) -> bool:
    """Whether `redaction._apply` of this rule would report a replacement: a plain rule on any
    match (`subn` counts every match), a replacer on any match it does not decline (`sub` calls
    it on the same matches `finditer` yields)."""
    if rule.replacer is None:
        return rule.regex.search(text) is not None
    replacer = rule.replacer
    return any(replacer(match) is not None for match in _matches(rule.regex, text))


def _matches(regex: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    return regex.finditer(text)


@functools.cache
def _index() -> tuple[tuple[Rule, ...], dict[str, tuple[int, ...]], tuple[int, ...]]:
    """The pipeline's rules; keyword → the positions of the rules it opens; the positions of
    rules every text opens (keyword "")."""
    rules = tuple(redaction._RULES)
    by_keyword: dict[str, list[int]] = {}
    for position, rule in enumerate(rules):
        for keyword in rule.keyword_set:
            by_keyword.setdefault(keyword, []).append(position)
    always = tuple(by_keyword.pop("", ()))
    return rules, {k: tuple(v) for k, v in by_keyword.items()}, always


def _texts(record: RecordShape) -> Iterator[str]:
    """Every text `redact_record` redacts: the record's free-text fields, each option's, and
    each rejection's reason."""
    for name in _RECORD_TEXTS:
        yield from _strings(getattr(record, name))
    for option in record.options:
        for name in _OPTION_TEXTS:
            yield from _strings(getattr(option, name))
    for rejection in record.rejected_reasons:
        yield rejection.reason


def _strings(value: str | list[str]) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    else:
        yield from value

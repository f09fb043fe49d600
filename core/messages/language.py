"""Which language a person reads summaries in: English or Korean.

Why a choice at all: KernForge's stored `summary_sentence` is a Korean template with the user's
own reasons spliced in, so it must stay in the record as KernForge writes it; but a person who
reads English should not meet it in an export, a listing or a window. Every human-facing summary
is therefore rendered in the reader's language (`core.record.summary.summary_in`): the app's
View menu choice, else (and for the CLI) `DECISION_JOURNAL_LANGUAGE`, else the locale.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ENGLISH = "english"
KOREAN = "korean"
LANGUAGES = (ENGLISH, KOREAN)
LANGUAGE_ENV = "DECISION_JOURNAL_LANGUAGE"
"""`en` or `ko` (or `english`, `korean`): the summaries' language whatever the locale says."""
_NAMES = {"en": ENGLISH, "english": ENGLISH, "ko": KOREAN, "korean": KOREAN}
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""Where POSIX looks for the messages' locale, in its order of precedence."""


def language_named(name: str) -> str | None:
    """ENGLISH or KOREAN for a name `LANGUAGE_ENV` accepts; None for anything else."""
    return _NAMES.get(name.strip().lower())


def locale_language(locale_name: str) -> str:
    """KOREAN for a Korean locale (`ko_KR.UTF-8`, `ko`), ENGLISH for any other."""
    return KOREAN if locale_name.strip().lower().startswith("ko") else ENGLISH


def summary_language(environ: Mapping[str, str] | None = None) -> str:
    """The summaries' language for a command: `LANGUAGE_ENV` when it names one, else the
    messages' locale, else English."""
    env = os.environ if environ is None else environ
    chosen = language_named(env.get(LANGUAGE_ENV, ""))
    if chosen is not None:
        return chosen
    for variable in _LOCALE_VARIABLES:
        value = env.get(variable, "")
        if value:
            return locale_language(value)
    return ENGLISH

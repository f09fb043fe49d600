"""Building the journal index again in a new file, so nothing the records no longer say survives.

`decision-journal doctor --redact` runs this after `core.store.redaction_sweep` removed secrets
from the records: a rebuild inside the old file could leave the secret in freed pages.
"""

from __future__ import annotations

from core.index.index_file import remove_index_files
from core.index.journal_index import JournalIndex
from core.index.rows import IndexReadReport


def scrub_index(index: JournalIndex) -> IndexReadReport:
    """Deletes the index database, its WAL and shared memory, then builds it from the records.

    A rebuild inside the old file would leave freed pages and WAL frames holding the old
    text; a new file holds only what the records now say.
    """
    index.close()
    remove_index_files(index.path)
    return index.read_all_files()

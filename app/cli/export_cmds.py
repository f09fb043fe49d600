"""`export`: decisions as JSON, a MADR folder, a decisions.md log or CSV.

Where it writes: standard output unless `-o` names a target, so nothing lands in the current
folder by surprise. `-o FOLDER` (an existing one, or any path ending in `/`) writes inside it
under the name the window's export uses too (`core.exporters.naming`). An existing file, or a
MADR folder that already holds files, is replaced only with `--force`.
"""

from __future__ import annotations

import argparse
import itertools
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from app.cli.exit_codes import INVALID, OK, UNEXPECTED, print_error
from app.cli.filter_args import add_filters, add_limit, filter_from
from core.exporters import FORMATS, export, render_single
from core.exporters.json_export import json_pieces, write_json_pieces
from core.exporters.naming import export_name
from core.journal import Journal
from core.messages.language import summary_language
from core.messages.wording import count
from core.record.models import DecisionRecord


def cmd_export(journal: Journal, args: argparse.Namespace) -> int:
    if args.format == "json":
        return _export_json(journal, args)
    records = journal.index.list_records(filter_from(journal, args))
    if args.limit:
        records = records[: args.limit]  # newest first, as list shows them
    if args.format == "madr":
        return _export_folder(records, args)
    language = summary_language()

    def to_stdout() -> None:
        data = render_single(args.format, records, include_private=args.private, language=language)
        sys.stdout.buffer.write(data)

    def to_file(target: Path) -> Path:
        return export(
            args.format,
            records,
            target.parent,
            file_name=target.name,
            include_private=args.private,
            language=language,
        )[0]

    return _single_file(args, len(records), to_stdout, to_file)


def _export_json(journal: Journal, args: argparse.Namespace) -> int:
    """The JSON array, written from the index's compact JSON as it is read, chunk by chunk
    (`core.exporters.json_export.json_pieces`): no record model is built, and the journal is
    never held in memory whole."""
    index = journal.index
    ids = index.ids_of_whole(filter_from(journal, args))
    if args.limit:
        ids = ids[: args.limit]  # newest first, as list shows them
    compacts = itertools.chain.from_iterable(index.iter_compact(ids))
    pieces = json_pieces(compacts, include_private=args.private)
    return _single_file(
        args,
        len(ids),
        lambda: sys.stdout.buffer.writelines(pieces),
        lambda target: write_json_pieces(pieces, target.parent, target.name),
    )


def _single_file(
    args: argparse.Namespace,
    records: int,
    to_stdout: Callable[[], object],
    to_file: Callable[[Path], Path],
) -> int:
    """A single-file format to standard output, or to the file `-o` names."""
    if args.output in (None, "-"):
        to_stdout()
        return OK
    target = _file_target(args)
    if target is None:
        return INVALID
    try:
        written = to_file(target)
    except OSError as exc:
        return _cannot_write(target, exc)
    _say_written(records, written)
    return OK


def _file_target(args: argparse.Namespace) -> Path | None:
    """The file `-o` names (inside a folder it names, under the export's name), or None after
    saying why not (a missing folder, an existing file without --force)."""
    target = Path(args.output)
    if target.is_dir() or args.output.endswith(_SEPARATORS):
        target = target / export_name(args.format, private=args.private)
    elif _missing_folder(target):
        return None
    if _special_file(target) or _refuse_existing(target, args.force, "file"):
        return None
    return target


def _special_file(target: Path) -> bool:
    """True (after saying so) when target is a pipe, a device or a socket: an export replaces
    the file it writes, and even `--force` must not replace `/dev/full` or a FIFO someone reads."""
    try:
        mode = target.lstat().st_mode
    except OSError:
        return False
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
        return False
    print_error(
        f"{target} is a pipe, a device or a socket, not a file; an export would replace it "
        "(write to standard output with -o - and redirect it there instead)"
    )
    return True


_SEPARATORS = tuple({"/", os.sep})
"""A path ending in one names a folder (created when missing), never a file of that name."""


def _missing_folder(target: Path) -> bool:
    """True (after saying so) when the folder target goes in does not exist: a mistyped path
    fails rather than creating folders nobody asked for; a trailing / asks for them."""
    folder = target.parent
    if folder.is_dir() or not target.name:
        return False
    blocker = next((p for p in target.parents if os.path.lexists(p)), None)
    if blocker is not None and not blocker.is_dir():
        return False  # _cannot_write names the file in the way
    print_error(
        f"cannot write {target}: the folder {folder} does not exist "
        "(end the path with / to create a folder and write into it)"
    )
    return True


def _cannot_write(target: Path, exc: OSError) -> int:
    """The target and the system's reason, not the name of the temporary file it failed on."""
    blocker = next((p for p in target.parents if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        reason = f"{blocker} is a file, not a folder"
    else:
        reason = exc.strerror or type(exc).__name__
    print_error(f"cannot write {target}: {reason}")
    return UNEXPECTED


def _export_folder(records: list[DecisionRecord], args: argparse.Namespace) -> int:
    """MADR: one file per decision and an index, into a folder that is new, empty, or forced."""
    if args.output in (None, "-"):
        example = export_name("madr", private=args.private)
        print_error(
            f"madr writes a folder, not standard output; give -o FOLDER (e.g. -o {example})"
        )
        return INVALID
    target = Path(args.output)
    if target.exists() and not target.is_dir():
        print_error(f"{target} is a file; madr writes a folder")
        return INVALID
    if not args.output.endswith(_SEPARATORS) and _missing_folder(target):
        return INVALID
    if target.is_dir() and any(target.iterdir()) and _refuse_existing(target, args.force, "folder"):
        return INVALID
    try:
        written = export("madr", records, target, include_private=args.private)
    except OSError as exc:
        return _cannot_write(target, exc)
    _say_written(len(records), written[-1].parent)
    return OK


def _refuse_existing(target: Path, force: bool, kind: str) -> bool:
    """True (after saying so) when target exists and --force was not given."""
    if force or not os.path.lexists(target):
        return False
    what = "is not empty" if kind == "folder" else "exists"
    them = "its files" if kind == "folder" else "it"
    print_error(f"{target} {what}; add --force to replace {them}")
    return True


def _say_written(records: int, path: Path) -> None:
    print(f"Exported {count(records, 'decision')} to {os.path.abspath(path)}")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        help="export decisions (JSON, MADR, Markdown log or CSV)",
        description="Export decisions. Without -o, single-file formats go to standard output.",
    )
    p.add_argument("--private", action="store_true", help="keep private local metadata")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="json",
        help="json: one array; madr: a folder of MADR 4.0 files; markdown: one decisions.md log; "
        "csv: one row per decision",
    )
    add_filters(p)
    add_limit(p, "export")
    p.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="file to write, in a folder that exists ('-' or none: standard output), or a "
        "folder (an existing one, or a path ending in /, created) to write "
        "decision-journal-<format>-<stamp>.<ext> into; for madr, the folder to write",
    )
    p.add_argument(
        "--force", action="store_true", help="replace an existing file (or a madr folder's files)"
    )
    p.set_defaults(handler=cmd_export)

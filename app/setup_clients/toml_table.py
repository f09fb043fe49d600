"""Merging our server entry into Codex's `config.toml` with `tomlkit`, losing nothing else.

Why a round-tripping library: the file is the user's, with their comments, ordering, inline
tables (`mcp_servers = { other = {…} }`) and sub-tables of our own entry (a pinned
`[mcp_servers.decision-journal.env]`). `tomlkit` keeps every byte it is not asked to change, so
we set only the keys we own, key by key, and never replace a table. `tomllib` (the reference
reader) checks the input and re-reads the result to prove it holds exactly what we meant.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Mapping
from typing import Any

import tomlkit
from tomlkit.container import Container, OutOfOrderTableProxy
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, InlineTable, Table

from app.setup_clients.files import SetupError, Transform
from app.setup_clients.timeouts import keep_larger

TomlTable = Container | Table | InlineTable


def render_table(path: tuple[str, ...], values: dict[str, Any]) -> str:
    """The `--print` text: our entry as its own table, as a new file would hold it."""
    doc = tomlkit.document()
    parent: TomlTable = doc
    for part in path[:-1]:
        child = tomlkit.table(is_super_table=True)
        parent.append(part, child)
        parent = child
    parent.append(path[-1], _new_table(values))
    return tomlkit.dumps(doc)


def _new_table(values: Mapping[str, Any]) -> Table:
    table = tomlkit.table()
    for key, value in values.items():
        table.append(key, _item(value))
    return table


def _item(value: Any) -> Any:
    """A fresh value for a key we add: dicts become inline tables (one line, like ours)."""
    if isinstance(value, Mapping):
        inline = tomlkit.inline_table()
        inline.update({key: _item(item) for key, item in value.items()})
        return inline
    return value


def _parse(text: str, what: str) -> tomlkit.TOMLDocument:
    try:
        tomllib.loads(text)
        return tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, TOMLKitError) as exc:
        raise SetupError(f"{what} is not valid TOML ({exc}); nothing was written") from exc


def _table_at(doc: tomlkit.TOMLDocument, path: tuple[str, ...], what: str) -> Any:
    """The table at `path` (a header, dotted keys or inline), None when a part is missing."""
    table: Any = doc
    for index, part in enumerate(path):
        if part not in table:
            return None
        table = table[part]
        if not isinstance(table, (Table, InlineTable, OutOfOrderTableProxy)):
            dotted = ".".join(path[: index + 1])
            raise SetupError(f"{what}: {dotted} is not a table; nothing was written")
    return table


def _inline_ancestor(doc: tomlkit.TOMLDocument, path: tuple[str, ...]) -> int | None:
    """How many parts of `path` lead to the first inline table on the way, if any."""
    table: Any = doc
    for index, part in enumerate(path):
        if part not in table:
            return None
        table = table[part]
        if isinstance(table, InlineTable):
            return index + 1
    return None


def _separator(text: str) -> str:
    if not text or text.endswith("\n\n"):
        return ""
    return "\n" if text.endswith("\n") else "\n\n"


def _merge(
    table: TomlTable, values: Mapping[str, Any], larger: Collection[str], prefix: str
) -> list[str]:
    """Sets the keys we own inside `table`, one by one; every other key stays as it was.

    Returns:
        What changed, as `key` names (`env.PYTHONPATH`), and the raised values we kept.
    """
    changed: list[str] = []
    for key, value in values.items():
        name = f"{prefix}{key}"
        current = table.get(key)
        if isinstance(value, Mapping) and isinstance(current, (Table, InlineTable)):
            changed += _merge(current, value, larger, f"{name}.")
            continue
        wanted = _wanted(key, _plain(current), value, larger)
        if _plain(current) == wanted:
            if wanted != value:
                changed.append(f"kept your {name} = {current}")
            continue
        if key in table:
            table[key] = _item(wanted)
        else:
            _add(table, key, _item(wanted))
        changed.append(name)
    return changed


def _wanted(key: str, current: Any, value: Any, larger: Collection[str]) -> Any:
    """Our value for `key`: a number in `larger` never lowers the user's; a list of names
    (`env_vars`) is the user's list with ours appended where missing."""
    if key in larger:
        return keep_larger(current, value)
    if isinstance(value, list) and isinstance(current, list):
        return current + [item for item in value if item not in current]
    return value


def _add(table: TomlTable, key: str, value: Any) -> None:
    """Adds a key right after the table's last key, not after the blank lines and comments
    that introduce the next (sub-)table, which is where appending would put it."""
    body = table.value.body if isinstance(table, Table) else []
    places = [i for i, (k, item) in enumerate(body) if k is not None and not _is_table(item)]
    place = places[-1] + 1 if places else 0
    insert_at = getattr(table.value, "_insert_at", None) if isinstance(table, Table) else None
    if insert_at is None or place >= len(body):
        table[key] = value
        return
    insert_at(place, key, value)


def _is_table(item: Any) -> bool:
    return isinstance(item, (Table, AoT))


def _plain(value: Any) -> Any:
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


def _lookup(data: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for part in path:
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _holds(entry: Any, values: Mapping[str, Any], larger: Collection[str]) -> bool:
    """Whether `entry` (as `tomllib` reads it) has every value we set, raised ones allowed."""
    if not isinstance(entry, Mapping):
        return False
    for key, value in values.items():
        if isinstance(value, Mapping):
            if not _holds(entry.get(key), value, larger):
                return False
        elif entry.get(key) != _wanted(key, entry.get(key), value, larger):
            return False
    return True


def upsert_table(
    path: tuple[str, ...], values: dict[str, Any], what: str, larger: Collection[str] = ()
) -> Transform:
    """A transform that makes the table at `path` hold `values`, keeping everything else.

    A new entry is appended as its own table at the end of the file (or into the inline table
    that holds its siblings); an existing one gets only our keys set, one by one, dicts merged
    key by key, so a user's own keys (`env.DECISION_JOURNAL_HOME`, `autoApprove`) survive. A
    key named in `larger` keeps the user's value when it is the larger number.
    """
    dotted = ".".join(path)

    def transform(old: str | None) -> tuple[str, list[str]]:
        text = old or ""
        doc = _parse(text, what)
        entry = _table_at(doc, path, what)
        inline = _inline_ancestor(doc, path[:-1])
        if entry is None and inline is None:
            new = text + _separator(text) + render_table(path, values)
            changes = [f"added [{dotted}]"]
        else:
            verb = "updated" if entry is not None else "added"
            if entry is None:
                parent = _table_at(doc, path[:inline], what)
                for part in path[inline:]:
                    parent = parent.setdefault(part, tomlkit.inline_table())
                entry = parent
            changed = _merge(entry, values, larger, "")
            kept = [change for change in changed if change.startswith("kept your ")]
            if len(kept) == len(changed):
                return text, []
            set_keys = ", ".join(change for change in changed if change not in kept)
            new = tomlkit.dumps(doc)
            changes = [f"{verb} [{dotted}] ({set_keys})", *kept]
        _parse(new, what)
        if not _holds(_lookup(tomllib.loads(new), path), values, larger):
            raise SetupError(f"{what}: could not place [{dotted}] safely; nothing was written")
        return new, changes

    return transform

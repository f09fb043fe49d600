"""Merging our entries into JSON config files while keeping every other key.

Why reformatting is acceptable here: JSON has no comments to lose, key order is kept, and the
files we touch are mostly machine-written. A file that is not plain JSON (VS Code allows
comments) is refused rather than rewritten without them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Collection, Sequence
from typing import Any

from app.setup_clients.files import SetupError, Transform
from app.setup_clients.timeouts import keep_larger

Mutation = Callable[[dict[str, Any]], list[str]]


def load_object(text: str | None, what: str) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SetupError(
            f"{what} is not plain JSON ({exc.msg} at line {exc.lineno}); nothing was written. "
            "Add the entry shown by --print by hand."
        ) from exc
    if not isinstance(value, dict):
        raise SetupError(f"{what} does not hold a JSON object; nothing was written")
    return value


def dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def json_transform(what: str, *mutations: Mutation) -> Transform:
    """A transform applying `mutations` in order; unchanged data returns the old text as is."""

    def transform(old: str | None) -> tuple[str, list[str]]:
        data = load_object(old, what)
        merged = copy.deepcopy(data)
        changes = [change for mutate in mutations for change in mutate(merged)]
        if merged == data:
            return old or "", []
        return dumps(merged), changes

    return transform


def _child(data: dict[str, Any], key: str, what: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise SetupError(f"{what}: {key!r} is not an object; nothing was written")
    return value


def merged(
    current: dict[str, Any], ours: dict[str, Any], larger: Collection[str]
) -> dict[str, Any]:
    """`current` with our keys set; keys in `larger` keep the user's value when it is larger."""
    wanted = {
        key: keep_larger(current.get(key), value) if key in larger else value
        for key, value in ours.items()
    }
    return {**current, **wanted}


def set_entry(
    path: tuple[str, ...], entry: dict[str, Any], what: str, larger: Collection[str] = ()
) -> Mutation:
    """Sets our keys of the object at `path` (e.g. ("mcpServers", "decision-journal")).

    Keys inside our entry that we do not manage (e.g. `autoApprove` a user added) are kept, and
    so is a user's larger value of a key named in `larger` (a timeout they raised).
    """

    def mutate(data: dict[str, Any]) -> list[str]:
        parent = data
        for key in path[:-1]:
            parent = _child(parent, key, what)
        name = path[-1]
        dotted = ".".join(path)
        current = parent.get(name)
        if current is None:
            parent[name] = dict(entry)
            return [f"added {dotted}"]
        if not isinstance(current, dict):
            raise SetupError(f"{what}: {dotted} is not an object; nothing was written")
        updated = merged(current, entry, larger)
        if updated == current:
            return []
        parent[name] = updated
        return [f"updated {dotted}"]

    return mutate


def without_listed(path: tuple[str, ...], items: Sequence[str], why: str, what: str) -> Mutation:
    """Takes `items` out of the list at `path`, keeping the user's other entries in order; a
    list left empty goes, and so does a parent table left empty. `why` ends the message."""

    def mutate(data: dict[str, Any]) -> list[str]:
        parents = [data]
        for key in path[:-1]:
            child = parents[-1].get(key)
            if not isinstance(child, dict):
                return []
            parents.append(child)
        current = parents[-1].get(path[-1])
        if not isinstance(current, list):
            return []
        gone = [item for item in current if item in items]
        if not gone:
            return []
        parents[-1][path[-1]] = [item for item in current if item not in items]
        for parent, key in reversed(list(zip(parents, path, strict=True))):
            if parent[key] in ([], {}):
                del parent[key]
        return [f"removed {', '.join(gone)} from {'.'.join(path)} ({why})"]

    return mutate


def ensure_hook(
    event: str, matcher: str, handler: dict[str, Any], marker: str, what: str
) -> Mutation:
    """Puts our command handler into `hooks[event]`, found again by `marker` in its command.

    Other hooks, and other handlers in a group we share, are left alone; keys the user added
    to our handler stay, and so does a `timeout` they raised.
    """

    def mutate(data: dict[str, Any]) -> list[str]:
        hooks = _child(data, "hooks", what)
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f"{what}: hooks.{event} is not an array; nothing was written")
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                continue
            for index, existing in enumerate(handlers):
                command = existing.get("command", "") if isinstance(existing, dict) else ""
                if isinstance(command, str) and command.endswith(marker):
                    updated = merged(existing, handler, ("timeout",))
                    if existing == updated and group.get("matcher") == matcher:
                        return []
                    handlers[index] = updated
                    group["matcher"] = matcher
                    return [f"updated hooks.{event} ({marker.strip()})"]
        groups.append({"matcher": matcher, "hooks": [dict(handler)]})
        return [f"added hooks.{event} ({marker.strip()})"]

    return mutate


def ensure_value(key: str, value: Any, what: str) -> Mutation:
    """Sets a top-level `key` (e.g. a hooks file's `"version": 1`) when the file lacks it; a
    different value the user wrote is refused rather than overwritten."""

    def mutate(data: dict[str, Any]) -> list[str]:
        if key not in data:
            data[key] = value
            return [f"added {key}"]
        if data[key] != value:
            raise SetupError(f"{what}: {key} is {data[key]!r}, not {value!r}; nothing was written")
        return []

    return mutate


def ensure_flat_hook(
    event: str, handler: dict[str, Any], marker: str, what: str, command_key: str = "command"
) -> Mutation:
    """Puts our handler into the list `hooks[event]` of a format without matcher groups
    (Copilot CLI's and Cursor's `{"version": 1, "hooks": {event: [handler, …]}}`), found
    again by `marker` at the end of its `command_key`.

    Other handlers stay as they are; keys the user added to ours stay, and so does a timeout
    (`timeoutSec`, `timeout`) they raised.
    """

    def mutate(data: dict[str, Any]) -> list[str]:
        hooks = _child(data, "hooks", what)
        handlers = hooks.setdefault(event, [])
        if not isinstance(handlers, list):
            raise SetupError(f"{what}: hooks.{event} is not an array; nothing was written")
        for index, existing in enumerate(handlers):
            command = existing.get(command_key, "") if isinstance(existing, dict) else ""
            if isinstance(command, str) and command.endswith(marker):
                updated = merged(existing, handler, ("timeoutSec", "timeout"))
                if existing == updated:
                    return []
                handlers[index] = updated
                return [f"updated hooks.{event} ({marker.strip()})"]
        handlers.append(dict(handler))
        return [f"added hooks.{event} ({marker.strip()})"]

    return mutate


def without_hook(event: str, marker: str, why: str, what: str) -> Mutation:
    """Takes out of `hooks[event]` every handler whose command ends with `marker` (ours, set
    up by hand for another client), a matcher group left without handlers, and the event
    left without groups; everything else stays. `why` ends the message."""

    def mutate(data: dict[str, Any]) -> list[str]:
        hooks = data.get("hooks")
        if not isinstance(hooks, dict) or not isinstance(hooks.get(event), list):
            return []
        groups: list[Any] = hooks[event]
        removed = 0
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not _ends_with(h, marker)]
            removed += len(handlers) - len(kept)
            if kept == handlers:
                kept_groups.append(group)
            elif kept:
                kept_groups.append({**group, "hooks": kept})
        if not removed:
            return []
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
        return [f"removed hooks.{event} ({marker.strip()}: {why})"]

    return mutate


def _ends_with(handler: Any, marker: str) -> bool:
    command = handler.get("command") if isinstance(handler, dict) else None
    return isinstance(command, str) and command.endswith(marker)

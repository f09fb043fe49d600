"""The real Claude Code (`claude -p`, from npm) with our MCP server and hook, as a user has it.

Why the real client: our other tests talk to our own model of Claude Code, and passed while the
real one silently dropped our main tool. Here the HOME is configured by our own
`decision-journal setup claude-code --write`, the model is a scripted fake of the Messages API
on 127.0.0.1 (`support/fake_anthropic`), and under Xvfb a person answers the real capture
window with xdotool keystrokes (`support/agent_desktop`). Every assertion is on what the model
receives (the tools a request offers, the tool results it reads back), on the project's files,
or on the client's own debug log.

Root may not bypass permissions, so the session allows the tools it uses with
`--allowedTools`: whatever is refused while a decision is pending is refused by our hook.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.agents.tools import PRESENT_TOOL, RECENT_TOOL, RESUME_TOOL, client_tool_name, resume_call
from core.store.decisions import DecisionStore
from tests.clients.support.agent_desktop import (
    CHOOSE_FIRST,
    CLOSE,
    QUIT,
    Person,
    desktop_for,
    home_env,
)
from tests.clients.support.claude_session import (
    OUR_TOOLS,
    ClaudeHome,
    ClaudeRun,
    run_claude,
    scripted,
)
from tests.clients.support.fake_anthropic import (
    Exchange,
    FakeAnthropic,
    ToolResult,
    Turn,
    call,
    say,
    tool_use_id,
)
from tests.clients.support.sessions import (
    SHELL_COMMAND,
    check_chosen_first,
    check_pending_then_blocked,
    structured,
)
from tests.factories import proposal_dict
from tests.integration.agent_support import ROOT, Desktop, short_runtime_dir

pytestmark = pytest.mark.timeout(180)

PRESENT = client_tool_name("claude-code", PRESENT_TOOL)
RESUME = client_tool_name("claude-code", RESUME_TOOL)
RECENT = client_tool_name("claude-code", RECENT_TOOL)
TOP_LEVEL_REFUSED = ("anyOf", "oneOf", "allOf", "not", "enum")
"""Schema keywords the Anthropic API refuses at the top of a tool's input schema."""
HANGUL = re.compile("[\uac00-\ud7a3]")
TOOL_LIST = re.compile(r"\(((?:[A-Z][A-Za-z]+, )+[A-Z][A-Za-z]+)\)")
"""A parenthesised list of tool names in a deny text, e.g. "(Read, Grep, Glob)"."""
SESSION_TOOLS = ("Read", "Write", "Edit", "Bash", "ToolSearch", "AskUserQuestion")
"""Allowed without asking, so that anything refused is refused by our hook."""


@dataclass(frozen=True)
class Session:
    """One finished scripted session: the run, the fake that played the model, the home."""

    run: ClaudeRun
    fake: FakeAnthropic
    place: ClaudeHome
    person_problem: str = ""

    def describe(self) -> str:
        """The run, the script's own errors and the paths the fake did not serve."""
        unknown = [f"{r.method} {r.path}" for r in self.fake.unknown]
        extra = [
            self.person_problem,
            *self.fake.errors,
            *(["unserved: ", *unknown] if unknown else []),
        ]
        return "\n".join([*filter(None, extra), self.run.describe()])

    def result(self, turn: int) -> ToolResult:
        """The tool result answering the scripted `turn`'s tool call."""
        results = self.fake.results()
        wanted = tool_use_id(turn)
        assert wanted in results, f"turn {turn} got no tool result\n{self.describe()}"
        return results[wanted]


# --- every tool reaches the model -------------------------------------------------------------


def _load_our_tools(exchange: Exchange) -> Turn:
    """Asks ToolSearch for those of our tools the client only named (deferred), if any."""
    missing = [
        t for t in OUR_TOOLS if t in exchange.deferred_names and t not in exchange.tool_names
    ]
    if not missing:
        return say("Every tool is loaded.")
    query = {"query": "select:" + ",".join(missing), "max_results": len(missing)}
    return call("ToolSearch", query, "Loading the decision tools.")


@pytest.fixture(scope="module", params=["user", "project"])
def claude_tool_listing(
    request: pytest.FixtureRequest,
    claude_executable: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Session]:
    """A session that reads the journal and loads our tools, with neither a display nor an
    app, after setup in either scope."""
    place = ClaudeHome.create(tmp_path_factory.mktemp("claude-tools"), request.param)
    with (
        short_runtime_dir() as runtime,
        FakeAnthropic(scripted([call(RECENT, {}), _load_our_tools, say("Done.")])) as fake,
    ):
        run = run_claude(
            claude_executable,
            place,
            home_env(place.home, runtime),
            fake,
            allowed_tools=["ToolSearch", RECENT],
        )
        yield Session(run, fake, place)


def test_every_one_of_our_tools_reaches_the_model_request(claude_tool_listing: Session) -> None:
    session = claude_tool_listing
    assert session.run.returncode == 0, session.describe()
    offered = session.fake.offered_tools()
    missing = [tool for tool in OUR_TOOLS if tool not in offered]
    assert not missing, f"never offered to the model with a schema: {missing}\n{session.describe()}"
    for name in OUR_TOOLS:
        schema = offered[name].get("input_schema", {})
        assert schema.get("type") == "object", (name, schema)
        assert not [k for k in TOP_LEVEL_REFUSED if k in schema], (name, sorted(schema))


def test_the_client_neither_skips_nor_rewrites_our_schemas(claude_tool_listing: Session) -> None:
    run = claude_tool_listing.run
    refused = run.debug_lines('"decision-journal"', "Skipping tool")
    rewritten = run.debug_lines('"decision-journal"', "Normalized input schema")
    assert not refused + rewritten, "\n".join(refused + rewritten)


def test_our_read_tool_runs_for_the_users_project(claude_tool_listing: Session) -> None:
    session = claude_tool_listing
    recent = session.result(0)
    assert not recent.is_error, f"{recent.text}\n{session.describe()}"
    assert recent.json()["workspace"] == str(session.place.workspace), recent.text


def test_our_mcp_server_exits_on_the_clients_sigint(claude_tool_listing: Session) -> None:
    run = claude_tool_listing.run
    assert run.debug_lines('"decision-journal"', "Sending SIGINT"), claude_tool_listing.describe()
    assert not run.debug_lines('"decision-journal"', "SIGINT failed"), run.describe()


@pytest.mark.parametrize("scope", ["user", "project"])
def test_a_pinned_journal_is_the_one_our_server_and_hook_share(
    claude_executable: Path, tmp_path: Path, scope: str
) -> None:
    """A user who pins DECISION_JOURNAL_HOME in their shell: Claude Code's MCP server and hook
    must both use that journal, whichever scope set them up. No app runs for it, so the
    present call stays pending, and the shell call must be blocked."""
    place = ClaudeHome.create(tmp_path, scope)
    pinned = tmp_path / "pinned-journal"
    steps = [call(PRESENT, proposal_dict()), call("Bash", {"command": SHELL_COMMAND}), say("Ok.")]
    with short_runtime_dir() as runtime, FakeAnthropic(scripted(steps)) as fake:
        env = home_env(place.home, runtime, DECISION_JOURNAL_HOME=str(pinned))
        run = run_claude(
            claude_executable, place, env, fake, allowed_tools=[*SESSION_TOOLS, *OUR_TOOLS]
        )
        session = Session(run, fake, place)
    check_pending_then_blocked(pinned, [session.result(0), session.result(1)], place.workspace)


# --- the real window under Xvfb ---------------------------------------------------------------


def window_session(
    claude: Path,
    root: Path,
    steps: Callable[[Path], list[Any]],
    answers: Sequence[Sequence[tuple[str, str]]],
    *,
    files: dict[str, str] | None = None,
    questions: bool = False,
) -> Session:
    """Runs a scripted session while the real app shows its windows and a person answers.

    Args:
        claude: the client's executable.
        root: an empty folder for the HOME and the project.
        steps: the script, made from the project folder's path.
        answers: the keystrokes for each window, in order.
        files: files (name: text) the project holds before the session.
        questions: the windows are AskUserQuestion's, and the client runs in SDK mode, the
            only `-p` mode that offers that tool.
    """
    place = ClaudeHome.create(root)
    for name, text in (files or {}).items():
        (place.workspace / name).write_text(text, encoding="utf-8")
    with (
        desktop_for(place.home) as desk,
        FakeAnthropic(scripted(steps(place.workspace))) as fake,
        Person(QuestionsDesk.of(desk) if questions else desk, *answers) as person,
    ):
        run = run_claude(
            claude,
            place,
            desk.env,
            fake,
            allowed_tools=[*SESSION_TOOLS, *OUR_TOOLS],
            sdk=questions,
        )
        return Session(run, fake, place, person.problem())


class QuestionsDesk(Desktop):
    """The same screen, where the person looks for AskUserQuestion's window instead."""

    TITLE = "^Question: "

    @classmethod
    def of(cls, desk: Desktop) -> QuestionsDesk:
        return cls(desk.display, desk.env, desk.journal)

    def find_window(self, timeout: float = 20.0) -> str:
        found = self.xdotool(
            "search", "--sync", "--onlyvisible", "--name", self.TITLE, timeout=timeout
        )
        return found.split()[0]

    def window_gone(self) -> bool:
        run = subprocess.run(
            ["xdotool", "search", "--onlyvisible", "--name", self.TITLE],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return not run.stdout.strip()


def _no_person_problem(session: Session) -> None:
    assert not session.person_problem, session.describe()


@pytest.fixture(scope="module")
def claude_answered_session(
    claude_executable: Path, tmp_path_factory: pytest.TempPathFactory
) -> Session:
    def steps(workspace: Path) -> list[Any]:
        return [call(PRESENT, proposal_dict(), "I will ask the human."), say("Recorded.")]

    return window_session(
        claude_executable, tmp_path_factory.mktemp("claude-answer"), steps, [CHOOSE_FIRST]
    )


@pytest.mark.xvfb
def test_an_answer_in_the_window_reaches_the_agents_next_request(
    claude_answered_session: Session,
) -> None:
    session = claude_answered_session
    answer = session.result(0)
    assert not answer.is_error, f"{answer.text}\n{session.describe()}"
    _no_person_problem(session)
    out = structured(answer)
    check_chosen_first(out)
    assert out["selection"]["label"] == "Per-record JSON", out
    record = DecisionStore(session.place.journal).get(out["decision_id"])
    assert record.selected_option_id == "per-record-json"
    assert out["instruction"].startswith("Implementation decision recorded: Per-record JSON")
    assert session.run.result.get("is_error") is False, session.describe()


@pytest.mark.xvfb
def test_the_agent_reads_the_answer_in_english(claude_answered_session: Session) -> None:
    out = claude_answered_session.result(0).json()
    assert "Per-record JSON" in out["summary"], out["summary"]
    assert "independent files never lose updates" in out["summary"], out["summary"]
    assert not HANGUL.search(out["summary"]), out["summary"]
    assert not HANGUL.search(out["instruction"]), out["instruction"]


# --- a pending decision gates edits, never our own tools --------------------------------------

PENDING_TURNS = {"Write": 1, "Read": 2, "Edit": 3, "Bash": 4, "ToolSearch": 5, RECENT: 6}
RESUME_TURN, WRITE_AFTER_TURN = 7, 8


def _pending_steps(workspace: Path) -> list[Any]:
    """Present (the person closes the window), try each tool, resume, then write."""

    def decision_id(exchange: Exchange) -> str:
        return str(exchange.results[0].json()["decision_id"])

    def tool_search(exchange: Exchange) -> Turn:
        if "ToolSearch" in exchange.tool_names:
            return call("ToolSearch", {"query": f"select:{RECENT}", "max_results": 1})
        return call("Read", {"file_path": str(workspace / "notes.txt")})

    notes = str(workspace / "notes.txt")
    return [
        call(PRESENT, proposal_dict()),
        call("Write", {"file_path": str(workspace / "blocked.txt"), "content": "x\n"}),
        call("Read", {"file_path": notes}),
        call("Edit", {"file_path": notes, "old_string": "hello", "new_string": "bye"}),
        call("Bash", {"command": f"touch {workspace / 'bash.txt'}", "description": "Touch"}),
        tool_search,
        call(RECENT, {}),
        lambda exchange: call(RESUME, {"decision_id": decision_id(exchange)}),
        call("Write", {"file_path": str(workspace / "after.txt"), "content": "x\n"}),
        say("Done."),
    ]


@pytest.fixture(scope="module")
def claude_pending_session(
    claude_executable: Path, tmp_path_factory: pytest.TempPathFactory
) -> Session:
    """The window is closed (pending), the agent tries tools, then resumes and it is answered."""
    return window_session(
        claude_executable,
        tmp_path_factory.mktemp("claude-pending"),
        _pending_steps,
        [CLOSE, CHOOSE_FIRST],
        files={"notes.txt": "hello\n"},
    )


def _pending_id(session: Session) -> str:
    present = session.result(0)
    assert not present.is_error, f"{present.text}\n{session.describe()}"
    first = present.json()
    assert first["status"] == "pending", first
    return str(first["decision_id"])


@pytest.mark.xvfb
@pytest.mark.parametrize(
    ("tool", "name", "text"),
    [("Write", "blocked.txt", None), ("Edit", "notes.txt", "hello\n"), ("Bash", "bash.txt", None)],
)
def test_edits_and_commands_are_blocked_while_a_decision_is_pending(
    claude_pending_session: Session, tool: str, name: str, text: str | None
) -> None:
    session = claude_pending_session
    decision_id = _pending_id(session)
    result = session.result(PENDING_TURNS[tool])
    assert result.is_error, result.text
    assert "blocked" in result.text.lower() and decision_id in result.text, result.text
    path = session.place.workspace / name
    assert (path.read_text(encoding="utf-8") if path.exists() else None) == text


@pytest.mark.xvfb
def test_the_deny_text_names_the_resume_call_and_only_tools_that_exist(
    claude_pending_session: Session,
) -> None:
    session = claude_pending_session
    decision_id = _pending_id(session)
    text = session.result(PENDING_TURNS["Write"]).text
    assert resume_call("claude-code", decision_id) in text, text
    named = {name for match in TOOL_LIST.findall(text) for name in match.split(", ")}
    unknown = sorted(named - session.fake.named_tools())
    assert not unknown, f"the deny text recommends tools this client lacks: {unknown}\n{text}"


@pytest.mark.xvfb
@pytest.mark.parametrize("tool", ["Read", "ToolSearch", RECENT])
def test_reading_and_our_own_tools_are_not_blocked_while_pending(
    claude_pending_session: Session, tool: str
) -> None:
    session = claude_pending_session
    decision_id = _pending_id(session)
    if tool not in session.fake.named_tools():
        pytest.skip(f"this Claude Code version does not offer {tool}")
    result = session.result(PENDING_TURNS[tool])
    assert not result.is_error, result.text
    assert "blocked" not in result.text.lower(), result.text
    if tool == RECENT:
        pending = [item["decision_id"] for item in result.json()["pending"]]
        assert pending == [decision_id], result.text


@pytest.mark.xvfb
def test_resume_by_id_returns_the_recorded_answer_and_lifts_the_gate(
    claude_pending_session: Session,
) -> None:
    session = claude_pending_session
    decision_id = _pending_id(session)
    resumed = session.result(RESUME_TURN)
    assert not resumed.is_error, f"{resumed.text}\n{session.describe()}"
    _no_person_problem(session)
    out = structured(resumed)
    check_chosen_first(out)
    assert out["decision_id"] == decision_id, out
    record = DecisionStore(session.place.journal).get(decision_id)
    assert record.selected_option_id == "per-record-json"
    after = session.result(WRITE_AFTER_TURN)
    assert not after.is_error, after.text
    assert (session.place.workspace / "after.txt").read_text(encoding="utf-8") == "x\n"


# --- the app quits while the person answers ---------------------------------------------------


@pytest.fixture(scope="module")
def claude_quit_session(
    claude_executable: Path, tmp_path_factory: pytest.TempPathFactory
) -> Session:
    """The app is quit while its window waits; the agent then tries to write."""

    def steps(workspace: Path) -> list[Any]:
        return [
            call(PRESENT, proposal_dict()),
            call("Write", {"file_path": str(workspace / "blocked.txt"), "content": "x\n"}),
            say("Waiting for the human."),
        ]

    return window_session(claude_executable, tmp_path_factory.mktemp("claude-quit"), steps, [QUIT])


@pytest.mark.xvfb
def test_a_quit_mid_question_gives_the_agent_the_pending_id_stage_and_resume_call(
    claude_quit_session: Session,
) -> None:
    session = claude_quit_session
    _no_person_problem(session)
    present = session.result(0)
    assert not present.is_error, f"{present.text}\n{session.describe()}"
    out = structured(present)
    decision_id = out["decision_id"]
    assert (out["status"], out["stage"]) == ("pending", "choice"), out
    assert (
        f'{PRESENT_TOOL} again with only {{"decision_id": "{decision_id}"}}' in out["instruction"]
    )
    assert (session.place.journal / "pending" / f"{decision_id}.json").exists()
    blocked = session.result(1)
    assert blocked.is_error and decision_id in blocked.text, blocked.text
    assert resume_call("claude-code", decision_id) in blocked.text, blocked.text
    assert not (session.place.workspace / "blocked.txt").exists()


# --- AskUserQuestion answered in our window ---------------------------------------------------

QUESTION = "Which database should the cache use?"
ASK = {
    "questions": [
        {
            "question": QUESTION,
            "header": "Database",
            "multiSelect": False,
            "options": [
                {"label": "Postgres", "description": "We already run it."},
                {"label": "SQLite", "description": "Embedded, nothing to operate."},
            ],
        }
    ]
}


@pytest.fixture(scope="module")
def claude_question_session(
    claude_executable: Path, tmp_path_factory: pytest.TempPathFactory
) -> Session:
    def steps(workspace: Path) -> list[Any]:
        return [call("AskUserQuestion", ASK), say("Postgres it is.")]

    return window_session(
        claude_executable,
        tmp_path_factory.mktemp("claude-question"),
        steps,
        [(("key", "1"), ("key", "ctrl+Return"))],
        questions=True,
    )


@pytest.mark.xvfb
def test_a_question_answered_in_our_window_reaches_the_model_once_journaled(
    claude_question_session: Session,
) -> None:
    session = claude_question_session
    _no_person_problem(session)
    result = session.result(0)
    assert not result.is_error, f"{result.text}\n{session.describe()}"
    assert f'"{QUESTION}"="Postgres"' in result.text, result.text
    records = [r for r in DecisionStore(session.place.journal).list() if r.problem == QUESTION]
    assert [r.custom_selection or r.selected_label() for r in records] == ["Postgres"], records


@pytest.mark.xvfb
def test_importing_the_clients_transcript_after_the_window_adds_nothing(
    claude_question_session: Session,
) -> None:
    session = claude_question_session
    place = session.place
    transcripts = list((place.home / ".claude" / "projects").rglob("*.jsonl"))
    assert transcripts, "Claude Code wrote no transcript"
    before = sorted((r.id, r.decision_kind) for r in DecisionStore(place.journal).list())
    with short_runtime_dir() as runtime:
        done = subprocess.run(
            [sys.executable, "-m", "app.cli.main", "import", "--from", "claude-code", "--json"],
            env=home_env(place.home, runtime, PYTHONPATH=str(ROOT)),
            cwd=place.workspace,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert (report["read"], report["imported"]) == (1, 0), report
    after = sorted((r.id, r.decision_kind) for r in DecisionStore(place.journal).list())
    assert after == before, done.stdout

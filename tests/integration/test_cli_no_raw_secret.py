"""Twenty hard secrets go in through every door a user has, and none comes out anywhere.

Doors: `ask` answered in the terminal (problem, options, the choice's reason, each rejection),
`import`, `edit --reason/--note`, `outcome --note`, and every export format. Places searched:
every file under the journal (records, history, pending, notes, outcomes, the index and its
WAL), every exported file and folder name, and every command's stdout and stderr (the
terminal's output included). A secret counts as found when any piece of it is
(bench/redaction_scoring.py), not only its whole text.
"""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import termios
import time
from pathlib import Path

import pytest

from bench.redaction_scoring import leaked
from core.record.codec import encode_record
from tests.factories import make_record, proposal_dict
from tests.integration.cli_runner import ROOT, run_cli
from tests.integration.stored_bytes import stored_bytes

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")

KUBE = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBdTJx"
SECRETS = [
    "Tiger23+Nimbus",
    "fYOdEY#hCbklR",
    "p@ss#word!9x",
    "Maple$3794ember",
    "m9x(2k!q@z#h^8&*r3p_w5v",
    "ZGVwbG95OlNwcmluZzIwMjYhIXg=",
    KUBE,
    "IQoJb3JpZ2luX2VjEOr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+t4Hn7cRe/5KwY1=",
    "dckr_oat_7Hq2LmXp9Rt4Vw8Zs1Kd5Fg3Jb6",
    "ya29.a0AfH6SMBx3kQ9pL2mN8rT5vW1yZ4cF7hJ0kD3gS6aE9",
    "1//0gFq8Ztyb3kXCgYIARAAGBASNwF-L9IrQn4KzP1m3XyZ7cWvTqHb0R8s",
    "Vq8pL2xK9mR4tW7zN1cB5dF3",
    "9c1e7f3a5b2d4e6f8a0c2e4f6a8b0d1c",
    "k3v7q2xw5ml4ha6zr2dp7yt3nb5jc4gs6fe2ku7wq3xm5ln4hb6a",
    "NRII-7hQ2-LmXp9Rt4Vw8Zs1Kd5Fg3Jb6Nc",
    "3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706",
    "Oak!2291river",
    "q9+Xf3kPz/8LmWv2Rt==",
    "Kq7!vR2pLx",
    "비밀Sn0w%Peak!7",
]
SENTENCES = [
    f"관리자 암호: {SECRETS[0]}",
    f"git clone https://ci-bot:{SECRETS[1]}@git.corp.net/app.git",
    f"postgres://app:{SECRETS[2]}@db.internal:5432/shop",
    f"sshpass -p '{SECRETS[3]}' ssh deploy@10.0.4.12",
    f"SECRET_KEY = '{SECRETS[4]}'",
    f"_auth={SECRETS[5]}",
    f"client-key-data: {SECRETS[6]}",
    f"export AWS_SESSION_TOKEN={SECRETS[7]}",
    f"DOCKER_TOKEN={SECRETS[8]}",
    f"the access token {SECRETS[9]} expires hourly",
    f"refresh with {SECRETS[10]}",
    f"vercel deploy --token {SECRETS[11]}",
    f"curl -u AC5d3f0c9a7b1e2d4c6f8a0b2c4d6e8f1a:{SECRETS[12]} https://api.twilio.com",
    f"my Azure DevOps PAT is {SECRETS[13]}",
    f"NEW_RELIC_INSIGHTS_KEY={SECRETS[14]}",
    f"SNYK_TOKEN={SECRETS[15]}",
    f"mysql -u root -p'{SECRETS[16]}' shop",
    f"export API_TOKEN={SECRETS[17]}",
    f"pw for the bastion host: {SECRETS[18]}",
    f'"password": "{SECRETS[19]}"',
]


def _leaks(places: list[tuple[str, str]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for secret, sentence in zip(SECRETS, SENTENCES, strict=True):
        where = [name for name, text in places if leaked(secret, sentence, text)]
        if where:
            found[secret] = where
    return found


def _files(root: Path) -> list[tuple[str, str]]:
    """Every file under root, its name and its bytes read as text (binary SQLite pages too, and
    the records the index caches packed, unpacked)."""
    names = [(f"name {path}", str(path.relative_to(root))) for path in sorted(root.rglob("*"))]
    return names + [(where, data.decode("utf-8", "replace")) for where, data in stored_bytes(root)]


def _ask_in_terminal(journal: Path, proposal: Path, answers: list[str]) -> str:
    """`ask` on a pseudo-terminal, answering its prompts in turn; returns all it printed."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI with the pty as its controlling terminal
        attributes = termios.tcgetattr(0)
        attributes[3] &= ~termios.ECHO  # what the user types is theirs; the CLI's output is read
        termios.tcsetattr(0, termios.TCSANOW, attributes)
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        env["PYTHONPATH"] = str(ROOT)
        args = [sys.executable, "-m", "app.cli.main", "--journal", str(journal), "ask"]
        args += [str(proposal), "--no-app", "--workspace", str(ROOT), "--session", "s-tty"]
        os.execve(sys.executable, args, env)
    output = b""
    pending = list(answers)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
            if pending and output.rstrip().endswith((b":", b"?")):
                os.write(fd, (pending.pop(0) + "\n").encode())
        elif os.waitpid(pid, os.WNOHANG)[0]:
            break
    os.waitpid(pid, 0)
    return output.decode("utf-8", "replace")


def test_twenty_tricky_secrets_never_come_out(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    outputs: list[tuple[str, str]] = []

    proposal = proposal_dict(problem=f"{SENTENCES[0]} then {SENTENCES[1]}")
    proposal["options"][0]["label"] = SENTENCES[2][:60]
    proposal["options"][0]["description"] = SENTENCES[3]
    proposal["options"][0]["pros"] = [SENTENCES[4]]
    proposal["options"][1]["cons"] = [SENTENCES[5]]
    proposal_file = tmp_path / "proposal.json"
    proposal_file.write_text(json.dumps(proposal), encoding="utf-8")
    typed = _ask_in_terminal(journal, proposal_file, ["1", SENTENCES[6], SENTENCES[7]])
    outputs.append(("terminal ask", typed))
    assert "[REDACTED:" in typed

    records = tmp_path / "records.json"
    record = make_record(
        id="decision-imported",
        problem=f"{SENTENCES[8]} for the release",
        selection_reason_raw=SENTENCES[9],
        tags=[SENTENCES[10][:60]],
    )
    records.write_text("[" + encode_record(record).decode() + "]", encoding="utf-8")
    commands = [
        ("import", str(records)),
        ("edit", "decision-imported", "--expected-revision", "1", "--reason", SENTENCES[11],
         "--note", SENTENCES[12]),
        ("edit", "decision-imported", "--expected-revision", "2", "--reason", SENTENCES[13],
         "--note", SENTENCES[14], "--json"),
        ("outcome", "decision-imported", "--ci", "pass", "--note", SENTENCES[15]),
        ("outcome", "decision-imported", "--accepted", "yes", "--note", SENTENCES[16], "--json"),
        ("edit", "decision-imported", "--expected-revision", "3", "--reason", SENTENCES[17]),
        ("edit", "decision-imported", "--expected-revision", "4", "--custom", SENTENCES[18]),
        # a stale revision and a usage error: the refusals must not echo their input either
        ("edit", "decision-imported", "--expected-revision", "4", "--reason", SENTENCES[19]),
        ("edit", "decision-imported", "--expected-revision", "5", "--reject", SENTENCES[19]),
        ("outcome", "decision-imported", "--eval", SENTENCES[3]),
        ("list", "--json"), ("list",), ("show", "decision-imported"),
        ("show", "decision-imported", "--json"), ("history", "decision-imported"),
        ("history", "decision-imported", "--json"), ("pending",), ("pending", "--json"),
        ("outcome-stats", "--json"), ("recall", "release"),
    ]  # fmt: skip
    exports = tmp_path / "exports"
    for fmt in ("json", "markdown", "csv", "madr"):
        commands.append(("export", "--format", fmt, "--private", "-o", f"{exports}/{fmt}/"))
        commands.append(("export", "--format", fmt))
    for command in commands:
        done = run_cli(journal, *command)
        outputs.append((f"{' '.join(command[:2])} stdout", done.stdout))
        outputs.append((f"{' '.join(command[:2])} stderr", done.stderr))
    assert (journal / "cache" / "index.sqlite3").exists()
    assert list(exports.rglob("*.md"))
    leaks = _leaks(outputs + _files(journal) + _files(exports))
    assert leaks == {}, json.dumps(leaks, indent=1, ensure_ascii=False)

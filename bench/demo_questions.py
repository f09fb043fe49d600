"""Shows the questions window as Claude Code would bring it up, for screenshots and a manual look.

Default: starts the real tray app on a temporary journal, then runs the real
`decision-journal hook claude-code` with the two-question AskUserQuestion payload from
tests/data/hooks and prints what the hook answers once the window is answered or dismissed.
With `--dark` it shows the window alone, in-process, with the dark palette (no app, no hook),
because Xvfb reports no colour scheme and the app would stay light.

    python -m bench.demo_questions [--dark]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
PAYLOAD = ROOT / "tests" / "data" / "hooks" / "claude_ask_several.input.json"


def _cli(journal: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "app.cli.main", "--journal", str(journal), *args]


def _payload(workspace: Path) -> str:
    text = PAYLOAD.read_text(encoding="utf-8")
    return text.replace("<WORKSPACE>", str(workspace)).replace("<SESSION>", "demo-session")


def _stop_on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(0)  # runs the finally blocks, which stop the app


def run_app_and_hook() -> int:
    """The real path: app process, hook process, a person at the window."""
    temp = Path(tempfile.mkdtemp(prefix="dj-demo-"))
    runtime = Path(tempfile.mkdtemp(prefix="dj-", dir="/tmp"))
    journal, workspace = temp / "journal", temp / "repo"
    workspace.mkdir()
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime), PYTHONPATH=str(ROOT))
    env.pop("CLAUDE_PROJECT_DIR", None)
    app = subprocess.Popen(
        _cli(journal, "app"), env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert app.stdout is not None
        print("app:", app.stdout.readline().strip(), flush=True)
        hook = subprocess.run(
            _cli(journal, "hook", "claude-code"),
            input=_payload(workspace),
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        print("hook exit", hook.returncode, flush=True)
        print(json.dumps(json.loads(hook.stdout), indent=2) if hook.stdout else "(no output)")
        return hook.returncode
    finally:
        app.terminate()
        try:
            app.wait(timeout=3)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()
        if app.stdout is not None:
            app.stdout.close()
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)


def show_dark() -> int:
    """The window alone with the dark palette, answered into stdout."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from app.gui.questions.window import QuestionsWindow
    from app.hooks.ask_user_question import params_from_input
    from app.hooks.clients import CLAUDE_CODE
    from app.hooks.event import parse_event

    signal.signal(
        signal.SIGTERM, signal.SIG_DFL
    )  # Qt waits in C++, where Python handlers never run
    app = QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    event = parse_event(_payload(Path("/home/dev/repo")), CLAUDE_CODE)
    assert event is not None  # the sample payload is a PreToolUse event
    params = params_from_input(event)
    window = QuestionsWindow(params, color_scheme=Qt.ColorScheme.Dark)
    window.answered.connect(lambda answers: print([a.model_dump() for a in answers]))
    window.dismissed.connect(lambda: print("dismissed"))
    window.move(40, 40)
    window.present()
    return app.exec()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dark", action="store_true", help="the window alone, dark palette")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    return show_dark() if args.dark else run_app_and_hook()


if __name__ == "__main__":
    sys.exit(main())

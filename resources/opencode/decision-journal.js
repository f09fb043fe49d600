// Decision Journal for opencode: while an implementation decision is pending, the agent's edits
// and commands wait for the human's answer; reads and the decision-journal tools still run.
//
// Written by `decision-journal setup opencode --write`, which rewrites it (after a backup) when
// run again; edit HOOK below only through that command. opencode loads every *.js file in its
// plugin folders (~/.config/opencode/plugin/, <project>/.opencode/plugin/).
//
// Before each tool call, the call goes to `decision-journal hook opencode` as one JSON event
// on stdin, and its answer decides:
//   exit 0, nothing printed           the tool runs;
//   exit 0, {"decision": "deny", ...} the call is refused: throwing makes opencode hand the
//                                     reason (which decision, how to resume) to the agent;
//   exit 2                            refused, the reason on stderr (the gate could not decide
//                                     while a decision may be pending);
//   anything else                     the tool runs and a warning is logged, as every other
//                                     client treats a hook that cannot start or crashes.

import { spawn } from "node:child_process";

const HOOK = { program: "decision-journal", args: ["hook", "opencode"], env: {} };
const TIMEOUT_MS = 60000;
const OUTPUT_MAX = 1048576;

function ask(event) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(HOOK.program, HOOK.args, {
        env: { ...process.env, ...HOOK.env },
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ code: null, stdout: "", stderr: String(error) });
      return;
    }
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.stdout.on("data", (data) => {
      if (stdout.length < OUTPUT_MAX) stdout += data;
    });
    child.stderr.on("data", (data) => {
      if (stderr.length < OUTPUT_MAX) stderr += data;
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: stderr || String(error) });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

function warn(text) {
  console.error(`decision-journal plugin: ${text}`);
}

export const DecisionJournal = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const answer = await ask({
      hook_event_name: "tool.execute.before",
      session_id: input?.sessionID ?? "",
      cwd: directory ?? process.cwd(),
      tool_name: input?.tool ?? "",
      tool_input: output?.args ?? {},
      tool_use_id: input?.callID ?? "",
    });
    if (answer.code === 2) {
      throw new Error(answer.stderr.trim() || "decision-journal blocked this tool call");
    }
    if (answer.code !== 0) {
      warn(`the hook did not answer (exit ${answer.code}): ${answer.stderr.trim()}`);
      return;
    }
    const text = answer.stdout.trim();
    if (!text) return;
    let reply;
    try {
      reply = JSON.parse(text);
    } catch {
      warn(`the hook printed something that is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    if (reply?.decision === "deny") {
      throw new Error(String(reply.reason || "decision-journal blocked this tool call"));
    }
  },
});

/** Why a test failed, from what its body threw; and the names its files are kept under. Pure. */
import { AgentStopped } from "../agent/agent-loop.js";
import { InstructionFailed } from "../agent/browser-agent.js";
import type { FailureKind } from "../report/run-result.js";

export class TestTimeout extends Error {
  override name = "TestTimeout";
}

export function failureOf(error: unknown): { kind: FailureKind; message: string } {
  if (error instanceof InstructionFailed) return { kind: error.kind, message: error.message };
  if (error instanceof AgentStopped) return { kind: error.reason, message: error.message };
  if (error instanceof TestTimeout) return { kind: "timeout", message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "error", message: message.split("\n")[0] ?? message };
}

/** A file or test name as a folder name: screenshots, frames and failure evidence are kept under it. */
export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "test"
  );
}

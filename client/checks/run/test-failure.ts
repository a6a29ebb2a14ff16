/** Why a test failed, from what its body threw; and the names its files are kept under. Pure. */
import { createHash } from "node:crypto";
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

const MAX_SLUG = 60;
/**
 * Names the slug keeps whole: lower-case ASCII words joined by one hyphen, which are their own
 * slug. Any other name loses something to it (case, spaces and punctuation, which all become
 * `-`, other scripts, its length): `log in` and `log-in` would otherwise share a folder.
 */
const PLAIN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** How a slug that carries a hash ends; a plain name ending so is hashed too, so it cannot be another's slug. */
const HASHED = /-[0-9a-f]{8}$/;

/**
 * A file or test name as a folder name: screenshots, frames and failure evidence are kept under
 * it. A plain name reads as itself (`signs-in`); any other name reads as its words joined by
 * hyphens and also carries a short hash of the whole name (`signs in` → `signs-in-6218095d`),
 * so two tests never share a folder (nor remove each other's evidence).
 */
export function slug(text: string): string {
  const readable = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (PLAIN.test(text) && !HASHED.test(text) && readable.length <= MAX_SLUG) return readable;
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 8);
  const cut = readable.slice(0, MAX_SLUG - hash.length - 1).replace(/-+$/, "");
  return cut ? `${cut}-${hash}` : `test-${hash}`;
}

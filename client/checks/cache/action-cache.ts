/**
 * The action cache: the actions a passing run resolved for each instruction, so the next run
 * replays them without the model. Pure: keys, element descriptors and the entries in memory;
 * cache-file.ts reads and writes the file, replay.ts replays an entry on a page.
 *
 * An entry never holds a secret's value: browser-agent.ts stores it with every known value
 * replaced by its `%name%` placeholder, which replay reveals again, and does not store at all
 * an instruction that typed a password no spec named (its `%typed_secret%` could not be
 * revealed on a later run).
 */
import { createHash } from "node:crypto";
import type { InstructionKind } from "../agent/agent-loop.js";
import type { RawElement } from "../agent/snapshot-script.js";
import type { CacheMode } from "../config/config-model.js";

export const CACHE_SCHEMA_VERSION = "obs.action-cache/v1";

/** An element as it can be found again on a later run: what it is, not its number in a snapshot. */
export interface TargetDescriptor {
  tag: string;
  role: string | null;
  type: string | null;
  label: string;
  /** Which of the elements that look exactly like it (0 for the first). */
  nth: number;
}

export interface CachedAction {
  tool: string;
  /** The tool's arguments without the element number, which is found again from `target`. */
  args: Record<string, unknown>;
  target: TargetDescriptor | null;
}

export interface CacheEntry {
  key: string;
  test: string;
  kind: InstructionKind;
  instruction: string;
  actions: CachedAction[];
  /** The page the model judged (checks only): a replayed check holds only on the same page. */
  finalFingerprint: string | null;
  /** The model's evidence when it finished. */
  result: string;
  /**
   * A check's quote of the page; a replay re-checks it against the page (replay.ts). Absent in
   * entries written before verdicts were grounded: those checks are judged by the model again.
   */
  quote?: string | null;
  recordedAt: string;
}

export interface CacheDocument {
  schema_version: typeof CACHE_SCHEMA_VERSION;
  entries: CacheEntry[];
}

/**
 * One instruction of one test on one engine; `ordinal` tells apart the same instruction given
 * twice in a test. The engine is part of it: engines render pages differently.
 */
export function instructionKey(
  engine: string,
  testId: string,
  kind: InstructionKind,
  instruction: string,
  ordinal: number,
): string {
  return createHash("sha256")
    .update(JSON.stringify([engine, testId, kind, instruction, ordinal]))
    .digest("hex")
    .slice(0, 32);
}

const sameLook = (a: RawElement, b: Omit<TargetDescriptor, "nth">) =>
  a.tag === b.tag && a.role === b.role && a.type === b.type && a.label === b.label;

export function describeTarget(element: RawElement, elements: RawElement[]): TargetDescriptor {
  const look = { tag: element.tag, role: element.role, type: element.type, label: element.label };
  const nth = elements.filter((other) => sameLook(other, look)).indexOf(element);
  return { ...look, nth: Math.max(nth, 0) };
}

/** The element number of the described element in a new snapshot, or null when it is gone. */
export function findTarget(target: TargetDescriptor, elements: RawElement[]): number | null {
  return elements.filter((element) => sameLook(element, target))[target.nth]?.index ?? null;
}

/** Only arguments that say what to do; the element number is the snapshot's, not the page's. */
export function cachedAction(tool: string, args: Record<string, unknown>, elements: RawElement[]): CachedAction | null {
  const { index, ...rest } = args;
  if (index === undefined) return { tool, args: rest, target: null };
  const element = elements.find((candidate) => candidate.index === index);
  return element ? { tool, args: rest, target: describeTarget(element, elements) } : null;
}

export class ActionCache {
  private readonly entries = new Map<string, CacheEntry>();
  private changed = false;

  constructor(
    readonly mode: CacheMode,
    entries: CacheEntry[] = [],
  ) {
    for (const entry of entries) this.entries.set(entry.key, entry);
  }

  get(key: string): CacheEntry | null {
    return this.mode === "off" ? null : (this.entries.get(key) ?? null);
  }

  /** Records (or rewrites) an entry; only a read-write cache keeps it. */
  put(entry: CacheEntry): void {
    // A replayed entry comes back as the same object: nothing to write.
    if (this.mode !== "read-write" || this.entries.get(entry.key) === entry) return;
    this.entries.set(entry.key, entry);
    this.changed = true;
  }

  get dirty(): boolean {
    return this.changed;
  }

  document(): CacheDocument {
    const entries = [...this.entries.values()].sort((a, b) => a.key.localeCompare(b.key));
    return { schema_version: CACHE_SCHEMA_VERSION, entries };
  }
}

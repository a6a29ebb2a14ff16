/** The action cache's file, `<report-dir>/action-cache.json`: read at the start of a run, written at its end. */
import { renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { definitionValidator } from "../../validation/schema-validator.js";
import type { CacheMode } from "../config/config-model.js";
import { artifactFolder, readOwnArtifact, writeArtifact } from "../report/artifact-files.js";
import { ActionCache, CACHE_SCHEMA_VERSION, type CacheDocument } from "./action-cache.js";

export const CACHE_FILE = "action-cache.json";

export function cachePath(reportDir: string): string {
  return join(reportDir, CACHE_FILE);
}

/**
 * A missing file is an empty cache: the run then asks the model, as without one. One that cannot
 * be read, is a link or is another user's (who could choose what is replayed) is ignored with a
 * warning, and so is one that is not a cache.
 */
export function loadCache(reportDir: string, mode: CacheMode, warn: (line: string) => void): ActionCache {
  if (mode === "off") return new ActionCache(mode);
  let text: string;
  try {
    text = readOwnArtifact(cachePath(reportDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      warn(`obs: ignoring the action cache (${(error as Error).message}); it will be rebuilt`);
    }
    return new ActionCache(mode);
  }
  let document: CacheDocument;
  try {
    document = JSON.parse(text) as CacheDocument;
    if (document?.schema_version !== CACHE_SCHEMA_VERSION || !Array.isArray(document.entries)) {
      throw new Error(`not an ${CACHE_SCHEMA_VERSION} document`);
    }
  } catch (error) {
    warn(`obs: ignoring the action cache ${cachePath(reportDir)} (${(error as Error).message}); it will be rebuilt`);
    return new ActionCache(mode);
  }
  // An entry edited by hand or written by another version would fail its test on every run
  // (replay cannot read it, and a failing test records nothing): it is dropped and recorded again.
  const validEntry = definitionValidator("entry", "checks", "action-cache.json");
  const entries = document.entries.filter((entry) => validEntry(entry));
  const dropped = document.entries.length - entries.length;
  if (dropped > 0) {
    warn(
      `obs: ignoring ${dropped} of the ${document.entries.length} entries of the action cache ${cachePath(reportDir)} (not as schemas/checks/action-cache.json describes them); they will be recorded again`,
    );
  }
  return new ActionCache(mode, entries);
}

/** Written whole through a temporary file, so a crash never leaves half a cache. */
export function saveCache(reportDir: string, cache: ActionCache): void {
  if (cache.mode !== "read-write" || !cache.dirty) return;
  const path = cachePath(reportDir);
  artifactFolder(reportDir, dirname(path));
  writeArtifact(`${path}.tmp`, `${JSON.stringify(cache.document(), null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

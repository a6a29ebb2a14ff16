/** The action cache's file, `<report-dir>/action-cache.json`: read at the start of a run, written at its end. */
import { renameSync } from "node:fs";
import { dirname, join } from "node:path";
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
  try {
    const document = JSON.parse(text) as CacheDocument;
    if (document.schema_version !== CACHE_SCHEMA_VERSION || !Array.isArray(document.entries)) {
      throw new Error(`not an ${CACHE_SCHEMA_VERSION} document`);
    }
    return new ActionCache(mode, document.entries);
  } catch (error) {
    warn(`obs: ignoring the action cache ${cachePath(reportDir)} (${(error as Error).message}); it will be rebuilt`);
    return new ActionCache(mode);
  }
}

/** Written whole through a temporary file, so a crash never leaves half a cache. */
export function saveCache(reportDir: string, cache: ActionCache): void {
  if (cache.mode !== "read-write" || !cache.dirty) return;
  const path = cachePath(reportDir);
  artifactFolder(reportDir, dirname(path));
  writeArtifact(`${path}.tmp`, `${JSON.stringify(cache.document(), null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

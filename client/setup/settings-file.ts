import {
  closeSync,
  copyFileSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";

/** The agent's user settings file: `~/.agentcli/settings.json`. */
export function agentSettingsPath(home: string = homedir()): string {
  return join(home, ".agentcli", "settings.json");
}

/** The file's text, or null when it does not exist. */
export function readSettings(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Replaces the file atomically: the new text goes to a temporary file in the same folder, is
 * flushed to disk and renamed over the original, so a crash leaves the old file or the new one,
 * never half of either. The previous version is kept as `<name>.bak`. Returns the backup path.
 */
export function writeSettingsAtomically(path: string, text: string, previous: string | null): string | null {
  const folder = dirname(path);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  let mode = 0o600;
  let backupPath: string | null = null;
  if (previous !== null) {
    mode = statSync(path).mode & 0o777;
    backupPath = join(folder, `${basename(path)}.bak`);
    copyFileSync(path, backupPath);
  }
  const temporary = join(folder, `.${basename(path)}.${process.pid}.tmp`);
  try {
    const fd = openSync(temporary, "w", mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return backupPath;
}

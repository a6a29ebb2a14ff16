import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, normalize } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { ownUid, privateDirProblem, tempSocketDir } from "../../shared/state-dir.js";

/**
 * What a file in the registry folder holds: an entry of this user's; one of this user's files
 * that is no entry (`unreadable`, safe to remove); or something obs does not trust nor touch
 * (`foreign`: a link, or a file another user made while the folder was open to them, or one
 * gone meanwhile).
 */
export type RegistryFile = { kind: "entry"; entry: RegistryEntry } | { kind: "unreadable" } | { kind: "foreign" };

/**
 * Reads a registry file without following a link (O_NOFOLLOW) or waiting on a FIFO
 * (O_NONBLOCK), and only when the opened file is a plain file of this user's: an entry names
 * the socket obs asks, and the files it removes once that collector is gone.
 */
export function readRegistryFile(path: string): RegistryFile {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { kind: "foreign" };
  }
  try {
    const stats = fstatSync(fd);
    const uid = ownUid();
    if (!stats.isFile() || (uid !== null && stats.uid !== uid)) return { kind: "foreign" };
    const entry = JSON.parse(readFileSync(fd, "utf8")) as RegistryEntry;
    if (entry === null || typeof entry !== "object" || typeof entry.socketPath !== "string") {
      return { kind: "unreadable" };
    }
    return { kind: "entry", entry };
  } catch {
    return { kind: "unreadable" };
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the socket a gone collector's entry names may be removed: only a socket of this
 * user's, named after the entry's instance id, in the registry folder or in this user's private
 * socket folder in the temp folder (`$TMPDIR/obs-<uid>`, 0700, the one obsd makes: a private
 * folder of the same name elsewhere is not obs's). Never any other file: an entry names
 * its own socket, and obs removes nothing else through it.
 */
export function removableSocket(entry: Pick<RegistryEntry, "instanceId" | "socketPath">, runDir: string): boolean {
  const path = entry.socketPath;
  if (!isAbsolute(path) || normalize(path) !== path) return false;
  if (typeof entry.instanceId !== "string" || basename(path) !== `${entry.instanceId}.sock`) return false;
  const folder = dirname(path);
  const ownFolder = folder === runDir || (folder === tempSocketDir() && privateDirProblem(folder) === null);
  if (!ownFolder) return false;
  try {
    const stats = lstatSync(path);
    const uid = ownUid();
    return stats.isSocket() && (uid === null || stats.uid === uid);
  } catch {
    return false;
  }
}

import { constants, openSync, readSync } from "node:fs";
import { endianness } from "node:os";

/**
 * What the write-ahead log holds, read from the WAL-index header at the start of the `-shm`
 * file, as SQLite's file format documents it (sqlite.org/walformat.html, "The WAL-Index
 * Header"): two copies of a 48-byte header, `mxFrame` (the frames of committed transactions in
 * the log) at offset 16 of each, then the checkpoint information, `nBackfill` (the frames a
 * checkpoint has copied into the database file) at offset 96. Numbers are in the machine's byte
 * order. SQLite exposes neither count without running a checkpoint, and better-sqlite3 has no
 * WAL hook, so this is how the writer learns when a checkpoint is due.
 */

/** Bytes of the header and checkpoint information read. */
export const WAL_INDEX_HEADER_BYTES = 136;

/** The WAL-index format the offsets are for (iVersion). */
const WAL_INDEX_VERSION = 3007000;
const HEADER_COPY_BYTES = 48;

export interface WalIndexCounts {
  /** Frames in the log from its start (mxFrame). */
  frames: number;
  /** Of those, the frames checkpointed into the database file (nBackfill). */
  backfilled: number;
}

/**
 * The counts in `header` (the first WAL_INDEX_HEADER_BYTES of the `-shm` file), or null when
 * they cannot be trusted: another version of the format, a header not yet initialized, or the
 * two copies unequal (read while a commit was writing them).
 */
export function walIndexCounts(header: Buffer): WalIndexCounts | null {
  if (header.length < WAL_INDEX_HEADER_BYTES) return null;
  const u32 = endianness() === "LE" ? (at: number) => header.readUInt32LE(at) : (at: number) => header.readUInt32BE(at);
  if (u32(0) !== WAL_INDEX_VERSION || header[12] !== 1) return null;
  if (!header.subarray(0, HEADER_COPY_BYTES).equals(header.subarray(HEADER_COPY_BYTES, 2 * HEADER_COPY_BYTES))) {
    return null;
  }
  const frames = u32(16);
  const backfilled = u32(96);
  return backfilled <= frames ? { frames, backfilled } : null;
}

/**
 * Descriptors on `-shm` files, by path, opened once and never closed while the process lives.
 * SQLite locks that file with POSIX record locks, and a process loses every such lock it holds
 * on a file when it closes any descriptor on it: another process could then take the log index
 * for unused and rebuild it, or a checkpoint truncate the log under a reader's snapshot
 * (sqlite.org/howtocorrupt.html, "Posix advisory locks canceled by a separate thread doing
 * close()"). A `-shm` file replaced while obsd runs leaves the descriptor on the old one, whose
 * counts then stay as they were: the writer's own automatic checkpoint still bounds the log.
 */
const kept = new Map<string, number>();

/** The counts of one store's write-ahead log, read from its `-shm` file (see `kept`). */
export class WalIndexReader {
  private readonly header = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  private readonly shmPath: string;

  constructor(dbPath: string) {
    this.shmPath = `${dbPath}-shm`;
  }

  /**
   * The counts now, or null when this read cannot be trusted (walIndexCounts). Throws when the
   * file cannot be opened (a link, or not there: the database is not open in WAL mode).
   */
  counts(): WalIndexCounts | null {
    let fd = kept.get(this.shmPath);
    if (fd === undefined) {
      fd = openSync(this.shmPath, constants.O_RDONLY | constants.O_NOFOLLOW);
      kept.set(this.shmPath, fd);
    }
    const read = readSync(fd, this.header, 0, WAL_INDEX_HEADER_BYTES, 0);
    return read === WAL_INDEX_HEADER_BYTES ? walIndexCounts(this.header) : null;
  }
}

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

import type Database from "better-sqlite3";
import {
  emptyOperationRollup,
  encodeRollup,
  mergeRollup,
  mergeStored,
  type OperationRollup,
  type SlowSpan,
} from "../operation-rollup.js";
import type { Migration } from "./shared.js";

// A span rollup row kept its duration histogram as pairs of 32-bit numbers (8 bytes a bucket)
// and its slowest spans as JSON text with hex ids (about 250 bytes for five), and an operation's
// slot kept a row per commit that touched it until 16 were merged. From this version
// (operation-rollup.ts, shared/duration-histogram.ts): the histogram is varints of each
// bucket's distance from the one before and its count, the slowest spans are varints and the
// ids' bytes, a row about 40% of its old size. The table is rebuilt with every slot's rows
// merged into one (readers add a slot's rows up, so the answers stay the same), `slowest` a BLOB.
//
// The rows being rebuilt are in the old form, except those migration 2 wrote in this same
// upgrade (with today's writer, so in the new form): a row's `slowest` is TEXT in the old form
// and a BLOB in the new, and the histogram goes with it.

const ROLLUPS_TABLE = `
CREATE TABLE span_rollups_v21 (
  width INTEGER NOT NULL,
  slot INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  spans INTEGER NOT NULL,
  newest_ns INTEGER NOT NULL,
  max_ns INTEGER NOT NULL,
  histogram BLOB NOT NULL,
  slowest BLOB NOT NULL
);
`;
const ROLLUPS_INDEX = "CREATE INDEX span_rollups_by_slot ON span_rollups (width, slot, service_id, name);";

/** Rows read per statement, between progress reports. */
const PAGE_ROWS = 10_000;

type RollupRow = [bigint, bigint, bigint, string, bigint, bigint, bigint, Uint8Array, string | Uint8Array];
/** A row and its row id. */
type PagedRow = [...RollupRow, bigint];

/** A histogram in the old form: (bucket, count) as little-endian 32-bit pairs. */
function oldBuckets(encoded: Uint8Array): Map<number, number> {
  const buckets = new Map<number, number>();
  const view = new DataView(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  for (let at = 0; at + 8 <= encoded.byteLength; at += 8) {
    const bucket = view.getUint32(at, true);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + view.getUint32(at + 4, true));
  }
  return buckets;
}

/** Adds a row, in either form, into `into`. */
function addRow(into: OperationRollup, row: RollupRow | PagedRow): void {
  const [, , , , spans, newestNs, maxNs, histogram, slowest] = row;
  if (typeof slowest === "string") {
    mergeRollup(into, {
      spans: Number(spans),
      newestNs,
      buckets: oldBuckets(histogram),
      slowest: JSON.parse(slowest) as SlowSpan[],
    });
  } else mergeStored(into, { spans, newest_ns: newestNs, max_ns: maxNs, histogram, slowest });
}

function rebuild(db: Database.Database, progress: (done: number, total: number) => void): void {
  const total = Number(db.prepare("SELECT count(*) FROM span_rollups").pluck().safeIntegers(false).get());
  const columns = "width, slot, service_id, name, spans, newest_ns, max_ns, histogram, slowest";
  // In the index's order (its last column is the row id), a page at a time from the row after
  // the last one read.
  const order = "width, slot, service_id, name, rowid";
  const page = db
    .prepare(
      `SELECT ${columns}, rowid FROM span_rollups WHERE (${order}) > (?, ?, ?, ?, ?)
       ORDER BY ${order} LIMIT ${PAGE_ROWS}`,
    )
    .raw()
    .safeIntegers(true);
  const insert = db.prepare(`INSERT INTO span_rollups_v21 (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  let key: PagedRow | undefined;
  let merged = emptyOperationRollup();
  const write = () => {
    if (key === undefined) return;
    const stored = encodeRollup(merged);
    insert.run(
      key[0],
      key[1],
      key[2],
      key[3],
      stored.spans,
      stored.newest_ns,
      stored.max_ns,
      stored.histogram,
      stored.slowest,
    );
  };
  let done = 0;
  let after: unknown[] = [-1n, 0n, 0n, "", 0n];
  for (;;) {
    const rows = page.all(...after) as PagedRow[];
    if (rows.length === 0) break;
    for (const row of rows) {
      if (key === undefined || row[0] !== key[0] || row[1] !== key[1] || row[2] !== key[2] || row[3] !== key[3]) {
        write();
        key = row;
        merged = emptyOperationRollup();
      }
      addRow(merged, row);
    }
    const last = rows[rows.length - 1] as PagedRow;
    after = [last[0], last[1], last[2], last[3], last[9]];
    done += rows.length;
    progress(done, total);
  }
  write();
  progress(total, total);
}

export const v021CompactSpanRollups: Migration = {
  version: 21,
  description: "span rollups keep their histograms and slowest spans as varints and bytes, one row per slot",
  rewrites: ["span_rollups"],
  progressUnit: "rollup rows",
  up(db, progress) {
    db.exec(ROLLUPS_TABLE);
    rebuild(db, progress);
    db.exec(`DROP TABLE span_rollups; ALTER TABLE span_rollups_v21 RENAME TO span_rollups; ${ROLLUPS_INDEX}`);
  },
};

import { join } from "node:path";
import type Database from "better-sqlite3";
import { decodeLogRequest, decodeTraceRequest } from "../../daemon/otlp/decode-request.js";
import { openWriteConnection } from "../../daemon/store/connection.js";
import { TelemetryWriter } from "../../daemon/store/telemetry-writer.js";
import { tempDir } from "./temp-dir.js";

export interface TestStore {
  db: Database.Database;
  path: string;
  writer: TelemetryWriter;
  writeTraces(request: unknown, receivedNs?: bigint): number;
  writeLogs(request: unknown, receivedNs?: bigint): number;
  counters(): Record<string, bigint>;
  close(): void;
}

/**
 * A real store in a temporary file, written through the same writer the worker uses.
 * `maxDbBytes` is the size cap the connection is tuned for (0: none).
 */
export function testStore(maxDbBytes = 0): TestStore {
  const dir = tempDir();
  const path = join(dir.path, "t.sqlite");
  const { db } = openWriteConnection(path, maxDbBytes);
  const writer = new TelemetryWriter(db);
  return {
    db,
    path,
    writer,
    writeTraces(request: unknown, receivedNs = 0n): number {
      const batch = decodeTraceRequest(Buffer.from(JSON.stringify(request)), "json");
      return writer.transaction(() => writer.writeSpans(batch, receivedNs));
    },
    writeLogs(request: unknown, receivedNs = 0n): number {
      const batch = decodeLogRequest(Buffer.from(JSON.stringify(request)), "json");
      return writer.transaction(() => writer.writeLogs(batch, receivedNs));
    },
    counters(): Record<string, bigint> {
      return Object.fromEntries(
        (db.prepare("SELECT name, value FROM counters").raw().all() as [string, bigint][]).map(([k, v]) => [k, v]),
      );
    },
    close() {
      (db as Database.Database).close();
      dir.cleanup();
    },
  };
}

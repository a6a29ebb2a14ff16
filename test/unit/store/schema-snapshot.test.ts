import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { openWriteConnection } from "../../../daemon/store/connection.js";
import { SCHEMA_VERSION } from "../../../daemon/store/schema.js";
import {
  SCHEMA_SNAPSHOT_COMMAND,
  SCHEMA_SNAPSHOT_PATH,
  schemaSnapshot,
  schemaText,
} from "../../../daemon/store/schema-snapshot.js";
import { packagePath } from "../../../shared/package-root.js";
import { tempDir } from "../../helpers/temp-dir.js";

describe("store schema snapshot", () => {
  const snapshotPath = packagePath(...SCHEMA_SNAPSHOT_PATH);

  it("is the schema a new store gets, regenerated after every new migration", () => {
    const checkedIn = readFileSync(snapshotPath, "utf8");
    expect(
      checkedIn === schemaSnapshot(),
      `${SCHEMA_SNAPSHOT_PATH.join("/")} is not the schema the migrations make: after adding or changing a migration, run \`${SCHEMA_SNAPSHOT_COMMAND}\` and commit the file`,
    ).to.equal(true);
  });

  it("matches a store opened for writing the way obsd opens it", () => {
    const dir = tempDir();
    try {
      const { db } = openWriteConnection(join(dir.path, "t.sqlite"));
      try {
        expect(schemaSnapshot()).to.contain(schemaText(db));
      } finally {
        db.close();
      }
    } finally {
      dir.cleanup();
    }
  });

  it("names the newest version and every table and index in order, without SQLite's own objects", () => {
    const text = schemaSnapshot();
    expect(text).to.contain(`PRAGMA user_version = ${SCHEMA_VERSION};`);
    expect(text).not.to.match(/sqlite_sequence|sqlite_autoindex/);
    const tables = [...text.matchAll(/^CREATE TABLE "?(\w+)"?/gm)].map((match) => match[1] ?? "");
    expect(tables).to.deep.equal([...tables].sort());
    expect(tables).to.include.members(["spans", "traces", "logs", "span_rollups", "meta"]);
    // Each index follows its table.
    const logs = text.indexOf('CREATE TABLE "logs"');
    const logsIndex = text.indexOf("CREATE INDEX logs_by_trace ON logs");
    const meta = text.indexOf("CREATE TABLE meta");
    expect(logs).to.be.lessThan(logsIndex);
    expect(logsIndex).to.be.lessThan(meta);
  });
});

// Writes daemon/store/schema.sql, the schema of a new store, from the compiled migrations
// (run by `npm run schema:snapshot`).
import { writeFileSync } from "node:fs";
import { SCHEMA_SNAPSHOT_PATH, schemaSnapshot } from "../dist/daemon/store/schema-snapshot.js";
import { packagePath } from "../dist/shared/package-root.js";

const path = packagePath(...SCHEMA_SNAPSHOT_PATH);
writeFileSync(path, schemaSnapshot());
process.stdout.write(`wrote ${path}\n`);

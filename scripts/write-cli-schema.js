// Writes schemas/cli/commands.json from the record schemas (run by `npm run schemas`).
import { writeFileSync } from "node:fs";
import { cliDocumentSchema } from "../dist/shared/cli-schema.js";
import { packagePath } from "../dist/shared/package-root.js";

const path = packagePath("schemas", "cli", "commands.json");
writeFileSync(path, `${JSON.stringify(cliDocumentSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${path}\n`);

import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { packagePath } from "../../shared/package-root.js";

// ajv-formats is CommonJS with a default export; under NodeNext its callable is `.default`.
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv };

/** Compiles a JSON Schema (OpenAPI-flavoured: `nullable` is understood) with formats enabled. */
export function compileSchema(schema: object, ...referenced: object[]): ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const other of referenced) ajv.addSchema(other);
  return ajv.compile(schema);
}

function cliSchemaFile(name: string): object {
  return JSON.parse(readFileSync(packagePath("schemas", "cli", name), "utf8")) as object;
}

/** Validates a whole `obs --json` document: the envelope and its command's data (schemas/cli). */
export function cliDocumentValidator(): ValidateFunction {
  return compileSchema(cliSchemaFile("commands.json"), cliSchemaFile("envelope.json"));
}

/** Validators for the JSON Schemas shipped under `schemas/`: ajv with its formats, every error reported. */
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { packagePath } from "../../shared/package-root.js";

const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv };

/** The validator of `schemas/<parts...>`, e.g. `schemaValidator("checks", "config.json")`. */
export function schemaValidator(...parts: string[]): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(packagePath("schemas", ...parts), "utf8")) as object);
}

/** Validators for the JSON Schemas shipped under `schemas/`: ajv with its formats, every error reported. */
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { packagePath } from "../../shared/package-root.js";

const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv };

function schemaAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return ajv;
}

function schemaFile(parts: string[]): { $id?: string } {
  return JSON.parse(readFileSync(packagePath("schemas", ...parts), "utf8")) as { $id?: string };
}

/** The validator of `schemas/<parts...>`, e.g. `schemaValidator("checks", "config.json")`. */
export function schemaValidator(...parts: string[]): ValidateFunction {
  return schemaAjv().compile(schemaFile(parts));
}

/** The validator of one of a schema's `definitions`, e.g. a cache's `entry`. */
export function definitionValidator(definition: string, ...parts: string[]): ValidateFunction {
  const ajv = schemaAjv();
  const schema = schemaFile(parts);
  ajv.addSchema(schema);
  const validate = ajv.getSchema(`${schema.$id}#/definitions/${definition}`);
  if (!validate) throw new Error(`schemas/${parts.join("/")} has no definition ${definition}`);
  return validate;
}

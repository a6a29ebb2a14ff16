import type { JsonValue } from "../../shared/api-records.js";
import { chargeDecoded } from "./decode-allowance.js";
import { PayloadError } from "./payload-error.js";
import type { WireCodec } from "./wire-codec.js";

/** An attribute value as stored and served: plain JSON. */
export type PlainValue = JsonValue;

/** How deeply arrays and kvlists may nest inside an attribute value. */
export const MAX_DEPTH = 32;

interface AnyValueShape {
  stringValue?: unknown;
  boolValue?: unknown;
  intValue?: unknown;
  doubleValue?: unknown;
  arrayValue?: { values?: unknown[] } | null;
  kvlistValue?: { values?: unknown[] } | null;
  bytesValue?: unknown;
}

interface KeyValueShape {
  key?: unknown;
  value?: unknown;
}

function has(object: object, key: string): boolean {
  // Decoded protobuf messages keep defaults on the prototype, so only own keys were sent.
  return Object.hasOwn(object, key) && (object as Record<string, unknown>)[key] != null;
}

/**
 * Converts an OTLP AnyValue to plain JSON. Kinds map as: string, bool and double as
 * themselves; int64 as a number when exact, else decimal text; bytes as base64 text;
 * arrays and kvlists recursively; an empty AnyValue as null.
 */
export function toPlainValue(value: unknown, codec: WireCodec, path: string, depth = 0): PlainValue {
  if (value == null) return null;
  if (typeof value !== "object") throw new PayloadError(`${path}: expected an AnyValue object`);
  if (depth > MAX_DEPTH) throw new PayloadError(`${path}: values nested deeper than ${MAX_DEPTH} levels`);
  const any = value as AnyValueShape;
  if (has(any, "stringValue")) {
    if (typeof any.stringValue !== "string") throw new PayloadError(`${path}.stringValue: expected a string`);
    return any.stringValue;
  }
  if (has(any, "boolValue")) {
    if (typeof any.boolValue !== "boolean") throw new PayloadError(`${path}.boolValue: expected a boolean`);
    return any.boolValue;
  }
  if (has(any, "intValue")) return codec.int64(any.intValue, `${path}.intValue`);
  if (has(any, "doubleValue")) return codec.double(any.doubleValue, `${path}.doubleValue`);
  if (has(any, "bytesValue")) return codec.bytes(any.bytesValue, `${path}.bytesValue`);
  if (has(any, "arrayValue")) {
    const values = listOf(any.arrayValue?.values, `${path}.arrayValue.values`);
    chargeDecoded(values.length);
    return values.map((item, i) => toPlainValue(item, codec, `${path}.arrayValue.values[${i}]`, depth + 1));
  }
  if (has(any, "kvlistValue")) {
    return toPlainObject(
      listOf(any.kvlistValue?.values, `${path}.kvlistValue.values`),
      codec,
      `${path}.kvlistValue.values`,
      depth + 1,
    );
  }
  return null;
}

export function listOf(value: unknown, path: string): unknown[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw new PayloadError(`${path}: expected an array`);
  return value;
}

/** A KeyValue list to an object; a repeated key keeps its last value. */
export function toPlainObject(
  keyValues: unknown[],
  codec: WireCodec,
  path: string,
  depth = 0,
): { [key: string]: PlainValue } {
  const result: { [key: string]: PlainValue } = {};
  chargeDecoded(keyValues.length);
  for (let i = 0; i < keyValues.length; i++) {
    const kv = keyValues[i] as KeyValueShape | null;
    if (kv == null || typeof kv !== "object") throw new PayloadError(`${path}[${i}]: expected a KeyValue object`);
    const key = kv.key;
    if (typeof key !== "string") throw new PayloadError(`${path}[${i}].key: expected a string`);
    setPlainKey(result, key, toPlainValue(kv.value, codec, `${path}[${i}].value`, depth));
  }
  return result;
}

/** Sets `key` on an attribute object; a repeated key keeps its last value. */
export function setPlainKey(object: { [key: string]: PlainValue }, key: string, value: PlainValue): void {
  // A key named "__proto__" must be stored as data, not set the object's prototype.
  if (key === "__proto__")
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** The object with its keys in sorted order; the object itself when they already are. */
export function sortedKeys(object: { [key: string]: PlainValue }): { [key: string]: PlainValue } {
  const keys = Object.keys(object);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = (keys[i - 1] as string) < (keys[i] as string);
  if (sorted) return object;
  const result: { [key: string]: PlainValue } = {};
  for (const key of keys.sort()) setPlainKey(result, key, object[key] as PlainValue);
  return result;
}

/**
 * An attribute object's JSON with its keys in sorted order (the text itself when they already
 * are): what a resource's or a scope's identity is hashed from, since OTLP attribute sets are
 * unordered and an exporter may send one resource's attributes in another order each time.
 */
export function sortedAttributesJson(json: string): string {
  const object = JSON.parse(json) as { [key: string]: PlainValue };
  const sorted = sortedKeys(object);
  return sorted === object ? json : JSON.stringify(sorted);
}

/**
 * The text an exact `attr.KEY=VALUE` filter compares against: strings as they are,
 * numbers and booleans as their JSON text, arrays and maps as compact JSON. Null is not indexed.
 */
export function indexText(value: PlainValue): string | null {
  if (value === null) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Decoded attributes: the JSON text to store and the flat index entries. */
export interface DecodedAttributes {
  json: string;
  indexed: string[];
}

export function decodeAttributes(keyValues: unknown, codec: WireCodec, path: string): DecodedAttributes {
  return describeAttributes(toPlainObject(listOf(keyValues, path), codec, path));
}

/** An attribute object's stored JSON and its index entries. */
export function describeAttributes(object: { [key: string]: PlainValue }): DecodedAttributes {
  const indexed: string[] = [];
  for (const key in object) {
    const text = indexText(object[key] as PlainValue);
    if (text !== null) indexed.push(key, text);
  }
  return { json: JSON.stringify(object), indexed };
}

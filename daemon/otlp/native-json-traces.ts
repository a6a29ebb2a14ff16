/**
 * The native OTLP/JSON trace decoder (native/otlp-json/, built by `npm install`): it parses
 * with simdjson and writes the packed columns in C++, several times faster than JSON.parse plus
 * the JavaScript decoder, which leaves the CPU to the writer. It takes the common shapes and
 * answers `undefined` for anything invalid or unusual; the caller then decodes with the
 * JavaScript decoder, which is the reference: both give the same packed batch, byte for byte.
 */
import { createRequire } from "node:module";
import { type PackedSpanBatch, SPAN_FIELDS } from "../store/packed-batch.js";
import { BatchScopes } from "./batch-scopes.js";

/** What the addon returns; see native/otlp-json/trace-batch.h. */
interface NativeTraceBatch {
  /** Per `resourceSpans[]` entry: attributes JSON, dropped attributes count, schema URL. */
  resources: [string, number, string | null][];
  /** Per `scopeSpans[]` entry: name, version, attributes JSON, dropped count, schema URL. */
  scopes: [string, string | null, string, number, string | null][];
  /** The packed batch's string table. */
  strings: string[];
  /** Texts that belong to one span (span id, attributes, events...), referred to from `numbers`. */
  texts: string[];
  /** SPAN_FIELDS slots per span in packed order; text fields hold `texts` indexes (-1: null). */
  numbers: Float64Array;
  /** Start and end nanoseconds per span. */
  times: BigUint64Array;
  /** The packed batch's index entries. */
  indexed: Int32Array;
}

interface OtlpJsonAddon {
  decodeTraces(body: Uint8Array): NativeTraceBatch | undefined;
}

function loadAddon(): OtlpJsonAddon | null {
  try {
    // From dist/daemon/otlp/ (and daemon/otlp/ in the source tree) to the package root.
    return createRequire(import.meta.url)("../../../build/Release/otlp_json.node") as OtlpJsonAddon;
  } catch {
    return null; // not built: every request takes the JavaScript decoder
  }
}

const addon = loadAddon();

/** Whether the native decoder is built and loaded. */
export const nativeJsonDecoderLoaded = addon !== null;

function text(texts: string[], at: number): string | null {
  return at < 0 ? null : (texts[at] as string);
}

/**
 * OTLP/JSON trace request bytes to a packed batch, or `undefined` when the request needs the
 * JavaScript decoder (including every invalid one, so errors read the same whichever runs).
 */
export function decodeTraceJsonNatively(body: Uint8Array): PackedSpanBatch | undefined {
  const native = addon?.decodeTraces(body);
  if (native === undefined) return undefined;
  const merged = new BatchScopes();
  const resourceAt = native.resources.map(([json, dropped, schemaUrl]) =>
    merged.resource({ json, indexed: [] }, dropped, schemaUrl),
  );
  const scopeAt = native.scopes.map(([name, version, json, dropped, schemaUrl]) =>
    merged.scope(name, version, { json, indexed: [] }, dropped, schemaUrl),
  );
  const { texts, numbers: n, times } = native;
  const count = times.length / 2;
  const fields: unknown[] = new Array(count * SPAN_FIELDS);
  for (let i = 0, o = 0; i < count; i++, o += SPAN_FIELDS) {
    fields[o] = n[o];
    fields[o + 1] = texts[n[o + 1] as number];
    fields[o + 2] = n[o + 2];
    fields[o + 3] = text(texts, n[o + 3] as number);
    fields[o + 4] = n[o + 4];
    fields[o + 5] = n[o + 5];
    fields[o + 6] = n[o + 6];
    fields[o + 7] = times[2 * i];
    fields[o + 8] = times[2 * i + 1];
    fields[o + 9] = n[o + 9];
    fields[o + 10] = text(texts, n[o + 10] as number);
    fields[o + 11] = texts[n[o + 11] as number];
    fields[o + 12] = text(texts, n[o + 12] as number);
    fields[o + 13] = text(texts, n[o + 13] as number);
    fields[o + 14] = n[o + 14];
    fields[o + 15] = n[o + 15];
    fields[o + 16] = n[o + 16];
    fields[o + 17] = resourceAt[n[o + 17] as number];
    fields[o + 18] = scopeAt[n[o + 18] as number];
  }
  return {
    resources: merged.resources,
    scopes: merged.scopes,
    strings: native.strings,
    fields,
    indexed: Array.from(native.indexed),
  };
}

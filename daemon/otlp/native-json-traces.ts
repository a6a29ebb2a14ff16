/**
 * The native OTLP/JSON trace decoder (native/otlp-json/, built by `npm install`): it parses
 * with simdjson and writes the packed columns in C++, much faster than JSON.parse plus the
 * JavaScript decoder (docs/PERFORMANCE.md; `npm run bench:decode`), which leaves the CPU to the
 * writer. It takes the common shapes and answers `undefined` for anything invalid or unusual;
 * the caller then decodes with the JavaScript decoder, which is the reference: both give the
 * same packed batch.
 */
import { createRequire } from "node:module";
import { asPackedSpans, type PackedSpanBatch, SPAN_FIELDS } from "../store/packed-batch.js";
import { BatchScopes } from "./batch-scopes.js";

/** What the addon returns; see native/otlp-json/trace-batch.h. */
interface NativeTraceBatch {
  /** Per `resourceSpans[]` entry: attributes JSON, dropped attributes count, schema URL. */
  resources: [string, number, string | null][];
  /** Per `scopeSpans[]` entry: name, version, attributes JSON, dropped count, schema URL. */
  scopes: [string, string | null, string, number, string | null][];
  /** The ASCII strings below, one after the other (see `sliceStrings`). */
  latin1: string;
  /** The strings below that are not ASCII. */
  wide: string[];
  /** The packed batch's string table, as bounds in `latin1` or places in `wide`. */
  stringBounds: Int32Array;
  /** Texts that belong to one span (span id, attributes, events...), referred to from `numbers`. */
  textBounds: Int32Array;
  /** SPAN_FIELDS slots per span in packed order; text fields hold `textBounds` numbers (-1: null). */
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

/** Per string: `latin1.slice(start, end)`, or `wide[-1 - start]` when start is negative. */
function sliceStrings(latin1: string, wide: string[], bounds: Int32Array): string[] {
  const strings: string[] = [];
  for (let i = 0; i < bounds.length; i += 2) {
    const start = bounds[i] as number;
    strings.push(start < 0 ? (wide[-1 - start] as string) : latin1.slice(start, bounds[i + 1]));
  }
  return strings;
}

/**
 * A Float64Array slot's value (an integer below 2^32) as a small integer where it fits, as the
 * JavaScript decoder's are: structured clone sends a double as 9 bytes, which the writer then
 * reads back, and a small integer in one to five.
 */
function int(value: number | undefined): number {
  const n = value as number;
  return n === (n | 0) ? n | 0 : n;
}

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
  const { latin1, wide, numbers: n, times } = native;
  const texts = sliceStrings(latin1, wide, native.textBounds);
  const count = times.length / 2;
  // Filled by push, not by index into `new Array(n)`: a holey array crosses to the writer in
  // structured clone's sparse form, index by index, which costs the writer more to receive.
  const fields: unknown[] = [];
  for (let i = 0, o = 0; i < count; i++, o += SPAN_FIELDS) {
    fields.push(
      int(n[o]),
      texts[n[o + 1] as number],
      int(n[o + 2]),
      text(texts, n[o + 3] as number),
      int(n[o + 4]),
      int(n[o + 5]),
      int(n[o + 6]),
      times[2 * i],
      times[2 * i + 1],
      int(n[o + 9]),
      text(texts, n[o + 10] as number),
      texts[n[o + 11] as number],
      text(texts, n[o + 12] as number),
      text(texts, n[o + 13] as number),
      int(n[o + 14]),
      int(n[o + 15]),
      int(n[o + 16]),
      resourceAt[n[o + 17] as number],
      scopeAt[n[o + 18] as number],
    );
  }
  return asPackedSpans({
    resources: merged.resources,
    scopes: merged.scopes,
    strings: sliceStrings(latin1, wide, native.stringBounds),
    fields,
    indexed: Array.from(native.indexed),
  });
}

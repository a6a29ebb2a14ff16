/**
 * The package's native module (native/, built by `npm install` into build/Release): the OTLP/JSON
 * trace decoder (otlp/native-json-traces.ts) and one allocator setting (process-allocator.ts).
 * It is optional: without it every request takes the JavaScript decoder, and the allocator
 * keeps its defaults.
 */
import { createRequire } from "node:module";
import type { NativeTraceBatch } from "./otlp/native-json-traces.js";

export interface NativeAddon {
  /** OTLP/JSON trace request bytes to packed columns; undefined when the JavaScript decoder must. */
  decodeTraces(body: Uint8Array): NativeTraceBatch | undefined;
  /** glibc's M_MMAP_THRESHOLD, fixed at `bytes`; false on another allocator or a refused value. */
  fixMallocMmapThreshold(bytes: number): boolean;
}

function load(): NativeAddon | null {
  try {
    // From dist/daemon/ (and daemon/ in the source tree) to the package root.
    return createRequire(import.meta.url)("../../build/Release/otlp_json.node") as NativeAddon;
  } catch {
    return null; // not built
  }
}

/** The native module, or null when it is not built (or does not load on this Node). */
export const nativeAddon: NativeAddon | null = load();

/**
 * Seeded random OTLP payloads for fuzzing: structural mutations of the OTLP specification's
 * sample payloads (JSON), byte mutations of their JSON and protobuf encodings, and plain noise.
 * The same seed gives the same payloads, so a failure can be replayed.
 */

import { otlpFixtureObject } from "./fixtures.js";
import { otlpTypes } from "./otlp-protobuf.js";

export type Signal = "traces" | "logs";

export interface FuzzPayload {
  signal: Signal;
  format: "json" | "protobuf";
  body: Buffer;
  /** How it was made, to name it when it fails. */
  recipe: string;
}

/** mulberry32: a small, fast, seedable generator (not for cryptography). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ID_KEYS = new Set(["traceId", "spanId", "parentSpanId"]);

/** The JSON form with hex ids turned into bytes, as protobufjs's fromObject wants them. */
function withByteIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withByteIds);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        ID_KEYS.has(key) && typeof inner === "string" ? Buffer.from(inner, "hex") : withByteIds(inner),
      ]),
    );
  }
  return value;
}

export function protobufOf(signal: Signal, object: unknown): Buffer {
  const type = signal === "traces" ? otlpTypes.traceRequest : otlpTypes.logsRequest;
  return Buffer.from(type.encode(type.fromObject(withByteIds(object) as Record<string, unknown>)).finish());
}

export function seedObject(signal: Signal): Record<string, unknown> {
  return otlpFixtureObject(signal === "traces" ? "trace" : "logs");
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const NASTY_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  Number.MAX_SAFE_INTEGER,
  1e308,
  "18446744073709551616",
  "-9223372036854775809",
  "",
  "0",
  "zz",
  "ABCDEF0123456789ABCDEF0123456789",
  "5b8efff798038103d269b633813fc60c00",
  "\u0000\u001b[31m",
  "é".repeat(200),
  [],
  [[[[]]]],
  {},
  { stringValue: 1 },
  { intValue: "x" },
  { arrayValue: { values: [{ kvlistValue: { values: [{ key: 1 }] } }] } },
  { bytesValue: "!!!not base64" },
];

/** Every path (list of keys) in a JSON value. */
function paths(
  value: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      const path = [...prefix, Array.isArray(value) ? Number(key) : key];
      out.push(path);
      paths(inner, path, out);
    }
  }
  return out;
}

function mutateStructure(random: () => number, object: Record<string, unknown>): { value: unknown; recipe: string } {
  const copy = structuredClone(object) as Record<string, unknown>;
  const all = paths(copy);
  const steps: string[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let i = 0; i < count && all.length; i++) {
    const path = pick(random, all);
    let parent: any = copy;
    for (const key of path.slice(0, -1)) parent = parent?.[key];
    if (!parent || typeof parent !== "object") continue;
    const key = path[path.length - 1] as string | number;
    const choice = random();
    if (choice < 0.6) {
      const value = pick(random, NASTY_VALUES);
      parent[key] = structuredClone(value);
      steps.push(`${path.join(".")}=${JSON.stringify(value)?.slice(0, 20)}`);
    } else if (choice < 0.8) {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      steps.push(`delete ${path.join(".")}`);
    } else {
      const inner = parent[key];
      parent[key] = Array.isArray(inner) ? [...inner, ...inner] : [inner, inner];
      steps.push(`double ${path.join(".")}`);
    }
  }
  return { value: copy, recipe: `structure(${steps.join("; ")})` };
}

function mutateBytes(random: () => number, bytes: Buffer): { body: Buffer; recipe: string } {
  const body = Buffer.from(bytes);
  const choice = random();
  if (choice < 0.35) {
    const flips = 1 + Math.floor(random() * 8);
    for (let i = 0; i < flips && body.length; i++)
      body[Math.floor(random() * body.length)] = Math.floor(random() * 256);
    return { body, recipe: `flip ${flips} bytes` };
  }
  if (choice < 0.6) {
    const at = Math.floor(random() * body.length);
    return { body: body.subarray(0, at), recipe: `truncate at ${at}` };
  }
  if (choice < 0.85) {
    const at = Math.floor(random() * body.length);
    const noise = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 16) }, () => Math.floor(random() * 256)));
    return {
      body: Buffer.concat([body.subarray(0, at), noise, body.subarray(at)]),
      recipe: `insert ${noise.length} at ${at}`,
    };
  }
  const at = Math.floor(random() * body.length);
  return { body: Buffer.concat([body.subarray(0, at), body.subarray(Math.floor(at / 2))]), recipe: `splice at ${at}` };
}

/** The payloads of one seed: a mix of every kind, both signals, both formats. */
export function* fuzzPayloads(seed: number, count: number): Generator<FuzzPayload> {
  const random = seededRandom(seed);
  const seeds = {
    traces: seedObject("traces"),
    logs: seedObject("logs"),
  };
  for (let i = 0; i < count; i++) {
    const signal: Signal = random() < 0.5 ? "traces" : "logs";
    const kind = random();
    if (kind < 0.4) {
      const { value, recipe } = mutateStructure(random, seeds[signal]);
      if (random() < 0.5) {
        yield { signal, format: "json", body: Buffer.from(JSON.stringify(value)), recipe: `json ${recipe}` };
      } else {
        // Structures protobufjs refuses to encode are still good JSON cases.
        let body: Buffer;
        try {
          body = protobufOf(signal, value);
        } catch {
          yield { signal, format: "json", body: Buffer.from(JSON.stringify(value)), recipe: `json ${recipe}` };
          continue;
        }
        yield { signal, format: "protobuf", body, recipe: `protobuf ${recipe}` };
      }
    } else if (kind < 0.9) {
      const format = random() < 0.5 ? "json" : "protobuf";
      const original =
        format === "json" ? Buffer.from(JSON.stringify(seeds[signal])) : protobufOf(signal, seeds[signal]);
      const { body, recipe } = mutateBytes(random, original);
      yield { signal, format, body, recipe: `${format} bytes ${recipe}` };
    } else {
      const length = Math.floor(random() * 512);
      const body = Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
      yield { signal, format: random() < 0.5 ? "json" : "protobuf", body, recipe: `noise ${length} bytes` };
    }
  }
}

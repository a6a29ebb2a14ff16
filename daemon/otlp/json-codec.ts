import { isSafeNumber, parse as parseLossless } from "lossless-json";
import { PayloadError } from "./payload-error.js";
import type { WireCodec } from "./wire-codec.js";

const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DECIMAL = /^-?\d+$/;
const UINT64_MAX = 2n ** 64n - 1n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/**
 * Thrown by the codec when an integer arrived as a bare JSON number too large to be exact:
 * JSON.parse has already rounded it, so the body must be parsed again losslessly.
 */
export class InexactIntegerError extends Error {
  override name = "InexactIntegerError";
}

/** Parses an OTLP/JSON body with the fast native parser. */
export function parseOtlpJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PayloadError(`invalid JSON: ${(error as Error).message}`);
  }
}

/** Parses keeping integers past 2^53 as their exact decimal text. Slower; used only when needed. */
export function parseOtlpJsonLossless(text: string): unknown {
  try {
    return parseLossless(text, null, (value: string) => (isSafeNumber(value) ? Number(value) : value));
  } catch (error) {
    throw new PayloadError(`invalid JSON: ${(error as Error).message}`);
  }
}

function integerText(value: unknown, path: string): bigint {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new PayloadError(`${path}: expected an integer, got ${value}`);
    if (!Number.isSafeInteger(value)) throw new InexactIntegerError(path);
    return BigInt(value);
  }
  if (typeof value === "string" && DECIMAL.test(value)) return BigInt(value);
  throw new PayloadError(`${path}: expected an integer as a number or a decimal string`);
}

/** OTLP/JSON: ids are hex (any case); 64-bit integers are decimal strings or numbers. */
export const jsonCodec: WireCodec = {
  id(value, size, path) {
    if (value == null || value === "") return null;
    if (typeof value !== "string") throw new PayloadError(`${path}: expected a hex string`);
    if (value.length === size * 2 && HEX.test(value)) return value.toLowerCase();
    // Some senders use protobuf's standard JSON mapping (base64) for ids.
    if (value.length === Math.ceil(size / 3) * 4 && BASE64.test(value)) {
      const bytes = Buffer.from(value, "base64");
      if (bytes.length === size) return bytes.toString("hex");
    }
    throw new PayloadError(
      `${path}: expected ${size} bytes as ${size * 2} hex characters, got "${value.slice(0, 80)}"`,
    );
  },
  uint64(value, path) {
    if (value == null) return 0n;
    const n = integerText(value, path);
    if (n < 0n || n > UINT64_MAX) throw new PayloadError(`${path}: out of range for an unsigned 64-bit integer`);
    return n;
  },
  int64(value, path) {
    // Most values are small: exact as doubles (15 digits at most), so no BigInt is needed.
    if (typeof value === "number" && Number.isSafeInteger(value)) return value === 0 ? 0 : value;
    if (typeof value === "string" && value.length <= 15 && DECIMAL.test(value)) {
      const n = Number(value);
      return n === 0 ? 0 : n;
    }
    const n = integerText(value, path);
    if (n < INT64_MIN || n > INT64_MAX) throw new PayloadError(`${path}: out of range for a 64-bit integer`);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
  },
  bytes(value, path) {
    if (typeof value !== "string" || !BASE64.test(value)) throw new PayloadError(`${path}: expected base64 text`);
    return value;
  },
  double(value, path) {
    if (value === "NaN" || value === "Infinity" || value === "-Infinity") return value;
    // A number past the largest double (1e400) rounds to an infinity, as a double parser
    // rounds it; it is kept by name, as JSON cannot carry it (JSON.stringify would write null).
    // The lossless parse hands such a number over as its text: the same answer either way.
    const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof n !== "number" || (typeof value === "string" && Number.isNaN(n))) {
      throw new PayloadError(`${path}: expected a number`);
    }
    if (n === Number.POSITIVE_INFINITY) return "Infinity";
    if (n === Number.NEGATIVE_INFINITY) return "-Infinity";
    return n;
  },
  uint32(value, path) {
    if (value == null) return 0;
    const n = typeof value === "string" && DECIMAL.test(value) ? Number(value) : value;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 0xffffffff) {
      throw new PayloadError(`${path}: expected an unsigned 32-bit integer`);
    }
    return n;
  },
};

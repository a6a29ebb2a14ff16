import type { Argv } from "yargs";
import { type DurationError, MAX_LOOKBACK_MS, parseDuration } from "../../shared/duration.js";
import type { AttributeFilter } from "../../shared/query-messages.js";
import { hideUrlPasswords } from "../../shared/url-passwords.js";
import { UsageError } from "../../shared/usage-failure.js";
import { COLLECTOR_URL_EXAMPLE, collectorUrlProblem } from "../discovery/explicit-target.js";
import type { ResolvedTarget } from "../discovery/resolve-target.js";
import { ArgumentError } from "../lifecycle/lifecycle-error.js";
import { collectorPort } from "./port-number.js";

/** Flags every query command takes: where the collector is, and --json. */
export function targetFlags<T>(argv: Argv<T>) {
  return argv
    .option("json", { type: "boolean", default: false, describe: "Write one obs.cli/v1 JSON document" })
    .option("base-url", {
      type: "string",
      coerce: collectorBaseUrl,
      describe: "Collector URL, used exactly (also OBS_MONITOR_URL)",
    })
    .option("host", { type: "string", describe: "Collector host, used exactly" })
    .option("port", { alias: "p", type: "string", coerce: portNumber, describe: "Collector port, used exactly" })
    .option("db", { type: "string", hidden: true })
    .check(oneCollectorAddress);
}

/**
 * yargs `check`: --base-url names the collector whole, so a --host or --port beside it would
 * be dropped without a word; both given is a usage error (exit 2).
 */
export function oneCollectorAddress(flags: Record<string, unknown>): true {
  if (flags.baseUrl === undefined) return true;
  const other = flags.host !== undefined ? "--host" : flags.port !== undefined ? "--port" : null;
  if (other) throw new UsageError(`--base-url and ${other} both name the collector: give one of them`);
  return true;
}

/** yargs `coerce` for --port: the port of the collector to reach, or a usage error (exit 2). */
export function portNumber(text: string): number {
  if (String(text).trim() === "") throw new UsageError("--port needs a value: a port number from 1 to 65535");
  const port = collectorPort(String(text));
  if (port === null) throw new UsageError(`--port ${text}: use a port number from 1 to 65535`);
  return port;
}

/** yargs `coerce` for --base-url: the http(s) URL of a collector, or a usage error (exit 2). */
export function collectorBaseUrl(text: string): string {
  const problem = collectorUrlProblem(String(text));
  if (problem) {
    throw new UsageError(
      `--base-url ${hideUrlPasswords(String(text))}: ${problem}; use the collector's URL, e.g. ${COLLECTOR_URL_EXAMPLE}`,
    );
  }
  return String(text);
}

/** Checks arguments before any request; bad ones end the command with exit 2. */
export function since(text: string, flag = "--since"): string {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (error) {
    if ((error as DurationError).tooLong) ms = Number.POSITIVE_INFINITY;
    else throw new ArgumentError(`${flag}: ${(error as DurationError).message}`);
  }
  if (ms > MAX_LOOKBACK_MS) throw new ArgumentError(`${flag} ${text} is over the maximum of 24h`);
  return text;
}

export async function target(flags: Record<string, unknown>): Promise<string> {
  return (await targetWithSource(flags)).baseUrl;
}

/** The collector URL and how it was chosen (flag, env or discovery). */
export async function targetWithSource(flags: Record<string, unknown>): Promise<ResolvedTarget> {
  if (flags.db !== undefined) {
    throw new ArgumentError(
      "--db belongs to the collector (obs monitor start); query commands find it by --base-url or discovery",
    );
  }
  const { resolveTarget } = await import("../discovery/resolve-target.js");
  return resolveTarget(
    {
      baseUrl: flags.baseUrl as string | undefined,
      host: flags.host as string | undefined,
      port: flags.port as number | undefined,
    },
    process.env,
    process.cwd(),
  );
}

const FILTER = /^(attr|attrContains)\.([^=]+)=(.*)$/s;

/** The `[filters..]` positional of the commands that take attribute filters. */
export function filtersPositional<T>(argv: Argv<T>, describe: string) {
  return argv.positional("filters", { type: "string", array: true, describe, coerce: filterTokens });
}

/**
 * yargs `coerce` for the `[filters..]` positional: a word that is no filter is an argument
 * error found while parsing, so it is reported like the others (exit 2, with the --help to run).
 */
export function filterTokens(tokens: unknown): string[] {
  const words = (Array.isArray(tokens) ? tokens : [tokens]).map(String);
  const keys = new Set<string>();
  for (const token of words) {
    const match = FILTER.exec(token);
    if (!match) throw new UsageError(`unexpected argument "${token}": filters look like attr.KEY=VALUE`);
    // As the API refuses it: kept silently, all but one value would be dropped.
    const key = `${match[1]}.${match[2]}`;
    if (keys.has(key)) throw new UsageError(`${key} is given more than once: filter on one value of a key`);
    keys.add(key);
  }
  return words;
}

/** The `attr.KEY=VALUE` / `attrContains.KEY=TEXT` tokens given as arguments, as a request's filters. */
export function attributeRequest(tokens: unknown): { attr?: AttributeFilter[]; attrContains?: AttributeFilter[] } {
  const attr: AttributeFilter[] = [];
  const attrContains: AttributeFilter[] = [];
  for (const token of filterTokens(tokens ?? [])) {
    const match = FILTER.exec(token) as RegExpExecArray;
    (match[1] === "attr" ? attr : attrContains).push([match[2] as string, match[3] as string]);
  }
  return { ...(attr.length ? { attr } : {}), ...(attrContains.length ? { attrContains } : {}) };
}

/** An id given as an argument: `bytes` bytes as hex, lowercased; anything else is exit 2. */
export function hexArgument(value: unknown, bytes: number, what: string): string {
  const text = String(value);
  if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(text)) {
    throw new ArgumentError(`"${text}" is not a ${what} (${bytes * 2} hex characters)`);
  }
  return text.toLowerCase();
}

/** Checks `--limit` when given: a positive integer, else exit 2. */
export function checkLimit(flags: Record<string, unknown>): void {
  if (flags.limit === undefined) return;
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new ArgumentError("--limit: use a positive integer");
}

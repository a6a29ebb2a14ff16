/**
 * The signals obsd ingests, registered once. Everything that used to switch on a signal's
 * name loops over SIGNALS or looks one up with `signalNamed`. Their order is the order in
 * which answers and log lines name them.
 */
import type { PackedBatchOf } from "../store/packed-batch.js";
import { logs } from "./logs.js";
import { metrics } from "./metrics.js";
import type { SignalModule } from "./signal-module.js";
import { traces } from "./traces.js";

const MODULES = [traces, logs, metrics] as const;

type Registered = (typeof MODULES)[number];
/** "traces" | "logs" | "metrics". */
export type SignalName = Registered["name"];
/** What each signal's records are counted as: "spans" | "logs" | "points". */
export type RecordsName = Registered["records"];
/**
 * A module of any signal. Callers hand a module the batch and the record writer looked up by
 * that same module's name; the compiler accepts each module here because method parameters
 * are compared both ways, so the brand on packed batches guards the module's inside (its
 * decoders and packing), and the lookup by name guards the dispatch.
 */
export type AnySignal = SignalModule<SignalName, RecordsName>;

/** Every signal, in registry order. */
export const SIGNALS: readonly AnySignal[] = MODULES;

/** A packed batch together with the signal it belongs to, as it crosses to the writer. */
export type SignalBatch = {
  [M in Registered as M["name"]]: { signal: M["name"]; batch: PackedBatchOf<M["records"]> };
}[SignalName];

/** A count per signal's records (`{ spans, logs }`), as retention and the writer report them. */
export type RecordCounts = Record<RecordsName, number>;

const BY_NAME = new Map<string, AnySignal>(SIGNALS.map((signal) => [signal.name, signal]));

/** The module of a signal; throws for a name no module has (a message from a mismatched thread). */
export function signalNamed(name: SignalName): AnySignal {
  const signal = BY_NAME.get(name);
  if (!signal) throw new Error(`no signal module is named "${name}"`);
  return signal;
}

/** Zero records of every signal. */
export function noRecords(): RecordCounts {
  return Object.fromEntries(SIGNALS.map((signal) => [signal.records, 0])) as RecordCounts;
}

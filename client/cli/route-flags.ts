/**
 * A query command's filter flags, derived from the route table (shared/query-routes.ts): each
 * route parameter with a `flag` is an option of the command bound to that route (its type and
 * choices from the parameter's kind and values), and the flags given become the request's
 * fields. A new parameter with a flag shows up in the command without a CLI edit (described by
 * the table); a command only chooses how its flags read in --help and in which order.
 */
import type { Argv, Options } from "yargs";
import type { ObsRequestOf } from "../../shared/query-messages.js";
import { type ParamKind, type ParamSpec, QUERY_ROUTES } from "../../shared/query-routes.js";
import type { QueryMethod } from "../../shared/query-types.js";

/** Kinds whose flag takes a number. */
const NUMBER_KINDS: ReadonlySet<ParamKind> = new Set(["positiveInteger", "milliseconds", "minutes"]);
/** Kinds whose flag may be repeated, each time adding to the list (`--group-by`, `--include`). */
const LIST_KINDS: ReadonlySet<ParamKind> = new Set(["groupByList", "enumList"]);

/**
 * How a command presents a route flag in --help: its text, or its text and whether the route's
 * default is shown (and then always sent).
 */
export type FlagHelp = string | { describe: string; withDefault: true };

/** A flag of the command's own that maps to no route parameter (`audit --baseline`). */
export interface OwnFlag {
  own: Options;
}

/**
 * A command's flags in --help order: route parameters by name, with their help, and the
 * command's own flags by flag name.
 */
export type FlagLayout = Record<string, FlagHelp | OwnFlag>;

type FlaggedParam = [name: string, spec: ParamSpec & { flag: string }];

/** The route's parameters that a CLI flag sets, in the table's order. */
export function flaggedParams(method: QueryMethod): FlaggedParam[] {
  const params: Record<string, ParamSpec> = QUERY_ROUTES[method].params;
  return Object.entries(params).filter((entry): entry is FlaggedParam => entry[1].flag !== undefined);
}

function optionOf(spec: ParamSpec, help: FlagHelp | undefined): Options {
  // Every route flag takes a value: `--since` alone is an error, not the default silently.
  const option: Options = {
    describe: typeof help === "object" ? help.describe : (help ?? spec.description),
    requiresArg: true,
  };
  if (spec.kind === "enum") option.choices = [...(spec.values ?? [])];
  else option.type = NUMBER_KINDS.has(spec.kind) ? "number" : "string";
  // Repeatable, one value per occurrence: a greedy list would swallow the positionals after it.
  if (LIST_KINDS.has(spec.kind)) Object.assign(option, { array: true, nargs: 1 });
  if (typeof help === "object" && help.withDefault && spec.default !== undefined) option.default = spec.default;
  return option;
}

/**
 * Defines the command's flags on `argv`: those `layout` names, in its order, then any other
 * flag the route has, in the table's order, with the table's description.
 */
export function routeFlags<T>(argv: Argv<T>, method: QueryMethod, layout: FlagLayout): Argv<T> {
  const params = new Map(flaggedParams(method));
  let defined = argv;
  for (const [name, entry] of Object.entries(layout)) {
    if (typeof entry === "object" && "own" in entry) {
      defined = defined.option(name, entry.own);
      continue;
    }
    const spec = params.get(name);
    if (!spec) throw new TypeError(`${method} has no parameter ${name} with a flag`);
    defined = defined.option(spec.flag, optionOf(spec, entry));
    params.delete(name);
  }
  for (const spec of params.values()) defined = defined.option(spec.flag, optionOf(spec, undefined));
  return defined;
}

/** `duration-min` → `durationMin`: where yargs keeps a flag's value. */
function flagKey(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The request fields the given flags set: each route parameter whose flag has a value. A
 * number stays a number, a group-by list's flag a list of texts (one per occurrence), an
 * enum list's its occurrences joined by commas; anything else is sent as its text, as typed
 * (main.ts refuses any other flag given twice).
 */
export function flagRequest<M extends QueryMethod>(
  method: M,
  flags: Record<string, unknown>,
): Partial<ObsRequestOf<M>> {
  const request: Record<string, string | number | string[]> = {};
  for (const [name, spec] of flaggedParams(method)) {
    const value = flags[flagKey(spec.flag)];
    if (value === undefined) continue;
    const values = (Array.isArray(value) ? value : [value]).map(String);
    if (spec.kind === "groupByList") request[name] = values;
    // The request holds the comma-separated text: `--include spans --include logs` is spans,logs.
    else if (spec.kind === "enumList") request[name] = values.join(",");
    else request[name] = typeof value === "number" ? value : String(value);
  }
  // The fields are the route's parameter names, and yargs checked each flag's type and choices.
  return request as Partial<ObsRequestOf<M>>;
}

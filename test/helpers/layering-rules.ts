import type { Allowance, ImportEdge, LayerRule } from "./import-graph.js";

/**
 * The layers of obs, as rules on direct imports between the sources under daemon/, client/
 * and shared/ (docs/architecture.md draws them). test/unit/layering.test.ts checks them.
 */

/** The folders the rules look at. */
export const LAYERED_FOLDERS = ["daemon", "client", "shared"] as const;

/** Front-ends answer users and programs: each asks the query service, never storage. */
const FRONT_ENDS = /^(daemon\/http|daemon\/ui|daemon\/mcp|client\/cli)\//;
/** Transports and front-ends: none of them opens or reads the SQLite file itself. */
const EDGES_OF_THE_DAEMON = /^(daemon\/http|daemon\/grpc|daemon\/ui|daemon\/mcp|client)\//;
/** The storage reader behind the query service: SQL over the store file. */
const STORAGE_READER = /^daemon\/query\/(sqlite-[^/]+|telemetry-reader)\.ts$/;

/**
 * The modules that work on SQLite: better-sqlite3 itself and every source that imports it
 * (types included), found from the graph so a new store module is covered without a list.
 */
export function sqliteModules(edges: readonly ImportEdge[]): Set<string> {
  return new Set(["better-sqlite3", ...edges.filter((edge) => edge.to === "better-sqlite3").map((edge) => edge.from)]);
}

export function layerRules(edges: readonly ImportEdge[]): LayerRule[] {
  const sqlite = sqliteModules(edges);
  return [
    {
      name: "otlp does not import the store",
      reason:
        "daemon/otlp decodes wire formats into records; the store persists them. A decoder that knows the store cannot be reused by another transport or tested alone",
      from: /^daemon\/otlp\//,
      to: /^daemon\/store\//,
    },
    {
      name: "transports and front-ends do not touch SQLite",
      reason:
        "the HTTP and gRPC receivers, the UI, the MCP server and the client reach the store only through the writer (ingest) and the query service; only daemon/store and the query worker's reader hold connections",
      from: EDGES_OF_THE_DAEMON,
      to: (target) => sqlite.has(target),
    },
    {
      name: "the client does not import the daemon",
      reason:
        "obs talks to obsd over HTTP and the control socket; importing daemon code would load it into every CLI command. The one exception is `obs monitor start` in the foreground, which runs obsd in the CLI's own process",
      from: /^client\//,
      to: /^daemon\//,
    },
    {
      name: "shared imports neither daemon nor client",
      reason: "shared/ holds what both sides agree on (records, settings, formats); it depends on neither",
      from: /^shared\//,
      to: /^(daemon|client)\//,
    },
    {
      name: "the web UI runs in a browser",
      reason:
        "client/web is bundled for the browser (scripts/build-web.js): it imports its own folder, the pure modules of shared/ (the route table, records, links) and its browser packages, never Node's modules, the CLI or the daemon",
      from: /^client\/web\//,
      to: (target) => !/^(client\/web\/|shared\/|preact(\/|$)|uplot(\/|$))/.test(target) && !target.endsWith(".css"),
    },
    {
      name: "front-ends go through the query service",
      reason:
        "a front-end (HTTP routes, CLI, later UI and MCP) asks the query service (daemon/query/query-service.ts), which owns defaults, caps, cursors and errors; the storage reader (daemon/query/sqlite-*.ts, telemetry-reader.ts) is its back end",
      from: FRONT_ENDS,
      to: STORAGE_READER,
    },
  ];
}

/** Each import the rules let through, exactly: see Allowance for the two kinds. */
export const ALLOWANCES: readonly Allowance[] = [
  {
    rule: "the client does not import the daemon",
    from: "client/cli/monitor-command.ts",
    to: "daemon/run-foreground.ts",
    kind: "design",
    reason: "`obs monitor start` without --detach runs the collector in the foreground, in this process",
  },
  {
    rule: "the client does not import the daemon",
    from: "client/cli/mcp-command.ts",
    to: "daemon/mcp/mcp-server.ts",
    kind: "design",
    reason:
      "`obs mcp` serves the same tools as obsd's /mcp, over ObsClient; imported lazily, so no other command loads it",
  },
  {
    rule: "otlp does not import the store",
    from: "daemon/otlp/native-json-traces.ts",
    to: "daemon/store/packed-batch.ts",
    kind: "until-fixed",
    reason:
      "the native JSON decoder fills the packed span batch, whose layout lives in the store; the layout stays one table in the store, beside the packer the writer unpacks with; it leaves if the layouts move to a module the otlp layer may import",
  },
  {
    rule: "transports and front-ends do not touch SQLite",
    from: "daemon/http/health-route.ts",
    to: "daemon/store/health-reader.ts",
    kind: "until-fixed",
    reason:
      "/api/health reads the store's counters through a HealthReader on the main thread's connection (built in daemon/collector.ts); it leaves when the health counts are asked of the query service",
  },
];

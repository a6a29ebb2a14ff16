/**
 * The JSON Schema of every `obs --json` document, per command (schemas/cli/commands.json).
 * Built from the same record schemas as the OpenAPI document and translated the way the CLI
 * translates records: snake_case keys (attribute maps keep their own keys), and OpenAPI's
 * `nullable` written as standard JSON Schema.
 */
import { CLI_SCHEMA_VERSION } from "./cli-envelope.js";
import { apiSchema, querySchemas, type Schema } from "./record-schemas.js";

const ENVELOPE_ID = "https://obs.local/schemas/cli/envelope.json";
const COMMANDS_ID = "https://obs.local/schemas/cli/commands.json";

const def = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const listOf = (name: string) => ({ type: "array", items: def(name) });

function object(properties: Record<string, unknown>, required = Object.keys(properties)): Schema {
  return { type: "object", required, properties, additionalProperties: false };
}

/** A registry entry's required fields; `endpoints` and `startTicks` are absent from older collectors. */
const COLLECTOR_REQUIRED = [
  "instanceId",
  "pid",
  "cwd",
  "host",
  "port",
  "baseUrl",
  "dbPath",
  "version",
  "startedAt",
  "socketPath",
];

/** The web UI's home on the collector, at the address the client reached it by. */
const UI_URL = { type: "string", format: "uri", description: "The collector's web UI (docs/ui.md)." };

/** The records the CLI adds beside the collector's own (still in the API's camelCase). */
function cliRecords(): Record<string, Schema> {
  const health = apiSchema("health");
  const collectorEndpoints = (health.properties as Record<string, Schema>).endpoints as Schema;
  const forwarding = (health.properties as Record<string, Schema>).forwarding as Schema;
  return {
    Collector: {
      ...object(
        {
          instanceId: { type: "string", pattern: "^[0-9a-f]{32}$" },
          pid: { type: "integer" },
          cwd: { type: "string" },
          host: { type: "string" },
          port: { type: "integer" },
          baseUrl: { type: "string" },
          dbPath: { type: "string" },
          version: { type: "string" },
          startedAt: { type: "string", format: "date-time" },
          startTicks: {
            type: "integer",
            minimum: 0,
            description:
              "When its process started, in clock ticks after boot (/proc/PID/stat); absent without /proc and from older collectors.",
          },
          socketPath: { type: "string" },
          endpoints: { ...collectorEndpoints, description: "Absent from collectors older than OTLP/gRPC support." },
        },
        COLLECTOR_REQUIRED,
      ),
      description: "A verified running collector, as its registry entry and control socket describe it.",
    },
    MonitorStart: object({
      started: { type: "boolean", description: "False when a running collector was adopted." },
      collector: def("Collector"),
      logPath: { type: "string", nullable: true, description: "The new collector's log; null when adopted." },
    }),
    MonitorStop: object({ stopped: { const: true }, collector: def("Collector") }),
    MonitorStatus: object({
      running: { const: true },
      collector: def("Collector"),
      uptimeSeconds: { type: "integer", minimum: 0 },
      process: {
        ...object({ cpuPercent: { type: "number", minimum: 0 }, memoryBytes: { type: "integer", minimum: 0 } }),
        nullable: true,
        description: "CPU and resident memory (pidusage); null when they cannot be read.",
      },
      ui: UI_URL,
      forwarding: {
        ...forwarding,
        description:
          "Each --forward destination's state, lag and counters; empty without forwarding (or when the collector did not answer).",
      },
    }),
    Status: {
      ...health,
      title: undefined,
      required: [...(health.required as string[]), "target", "ui"],
      properties: {
        ...(health.properties as Schema),
        target: object({
          baseUrl: { type: "string" },
          source: {
            enum: ["flag", "env", "discovery"],
            description: "--base-url/--host/--port, OBS_MONITOR_URL, or discovery of running collectors.",
          },
        }),
        ui: UI_URL,
      },
    },
  };
}

/** Each command and the record (or list of records) in its `data`. */
const COMMAND_DATA: Record<string, Schema> = {
  "monitor start": def("MonitorStart"),
  "monitor stop": def("MonitorStop"),
  "monitor status": def("MonitorStatus"),
  status: def("Status"),
  services: listOf("Service"),
  traces: listOf("TraceSummary"),
  trace: def("TraceDetail"),
  spans: listOf("Span"),
  span: def("SpanDetail"),
  logs: listOf("Log"),
  "trace-logs": listOf("Log"),
  "span-logs": listOf("Log"),
  "trace-stats": listOf("StatsRow"),
  "log-stats": listOf("StatsRow"),
  facets: listOf("FacetValue"),
  metrics: listOf("MetricSummary"),
  // The series of the window, or with --describe the metric's identity and attributes.
  metric: { oneOf: [def("MetricSeries"), def("MetricDetail")] },
  audit: def("AuditReport"),
  open: object({ url: { type: "string", format: "uri", description: "The web UI page opened (or printed)." } }),
};

function snakeKey(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** One schema node translated to the CLI's form; recursion follows every subschema. */
export function toCliSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toCliSchema);
  if (node === null || typeof node !== "object") return node;
  const schema = { ...(node as Schema) };
  if (schema.title === undefined) delete schema.title;
  if (typeof schema.$ref === "string") schema.$ref = schema.$ref.replace("#/components/schemas/", "#/definitions/");
  if (schema.nullable === true) {
    delete schema.nullable;
    if (schema.allOf) {
      const { allOf, description } = schema as { allOf: unknown[]; description?: string };
      return toCliSchema({ oneOf: [{ type: "null" }, ...allOf], ...(description ? { description } : {}) });
    }
    schema.type = [schema.type, "null"];
    // An OpenAPI enum that is nullable may list null already (OpenAPI 3.0 asks for it).
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([name, inner]) => [snakeKey(name), toCliSchema(inner)]),
      );
    } else if (key === "required") {
      out.required = (value as string[]).map(snakeKey);
    } else if (["items", "additionalProperties", "allOf", "oneOf", "anyOf", "not"].includes(key)) {
      out[key] = toCliSchema(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The schema every `--json` document of a known command satisfies. */
export function cliDocumentSchema(): Schema {
  const records = { ...querySchemas(), Health: apiSchema("health"), ...cliRecords() };
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: COMMANDS_ID,
    title: `${CLI_SCHEMA_VERSION} documents by command`,
    description:
      "An obs --json document: the envelope (envelope.json), and on success the data of its command. Generated by `npm run schemas` from schemas/api; do not edit by hand.",
    allOf: [
      { $ref: ENVELOPE_ID },
      ...Object.entries(COMMAND_DATA).map(([command, data]) => ({
        if: { required: ["command"], properties: { command: { const: command } }, not: { required: ["error"] } },
        // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a promise.
        then: { properties: { data: toCliSchema(data) } },
      })),
    ],
    definitions: Object.fromEntries(Object.entries(records).map(([name, schema]) => [name, toCliSchema(schema)])),
  };
}

/** The commands whose data the schema describes. */
export const DESCRIBED_COMMANDS = Object.keys(COMMAND_DATA);

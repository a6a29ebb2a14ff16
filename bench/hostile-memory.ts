/**
 * obsd's peak resident memory under requests built to cost the most memory a body within the
 * cap can: a million one-byte attributes on one span, a three-million-item array, many spans
 * of many attributes, the same on log records, and three such requests at once. Each scenario
 * runs on a fresh obsd (peak RSS is a high-water mark), with the default 16 MiB body cap.
 * Prints, per scenario: body size, the answers' statuses, peak RSS, and RSS 3 s afterwards.
 * Target (issue 32): peak RSS under 400 MB for any mix of requests within the body cap.
 *   BENCH_ONLY: run only the scenarios whose name contains this text (or one of `a|b|...`).
 */
import { ingestLimits } from "../daemon/ingest/ingest-limits.js";
import { RECORD_UNITS } from "../daemon/otlp/decode-allowance.js";
import { COLLECTOR_BATCH_SPANS, collectorBatch, collectorBatchProtobuf } from "../test/helpers/collector-batch.js";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { type HostileShape, hostileBody } from "../test/helpers/hostile-payloads.js";
import { http } from "../test/helpers/http.js";
import { hexId, traceRequest } from "../test/helpers/otlp-builders.js";
import { peakRss, round, rssMiB } from "./measure.js";

const MB = 1_000_000;
const TARGET_MB = 400;

interface Request {
  signal: "traces" | "logs";
  /** A protobuf body of this shape, or `json`: an OTLP/JSON body built once per run. */
  shape?: HostileShape;
  json?: (nowNs: bigint, seed: number) => unknown;
  /** A batch of server spans as an OpenTelemetry Collector sends it, in protobuf unless `json`. */
  collector?: { spans: number; attributes: number; json?: boolean };
}

/** OTLP/JSON: one span of `attributes` one-byte attributes (decoded whole by the native decoder). */
function wideJsonSpan(attributes: number) {
  return (nowNs: bigint, seed: number) =>
    traceRequest("hostile-json", [
      {
        traceId: hexId(seed, 16),
        spanId: hexId(1, 8),
        startNs: nowNs,
        attributes: Object.fromEntries(Array.from({ length: attributes }, (_, i) => [`a${i}`, "x"])),
      },
    ]);
}

/** OTLP/JSON: one span with one attribute of `items` empty array values (`{}`, three bytes each). */
function emptyArrayJson(items: number) {
  return (nowNs: bigint, seed: number) => {
    const text = JSON.stringify(
      traceRequest("hostile-array", [
        { traceId: hexId(seed, 16), spanId: hexId(1, 8), startNs: nowNs, attributes: { list: "PLACEHOLDER" } },
      ]),
    );
    const array = `{"arrayValue":{"values":[${"{},".repeat(items - 1)}{}]}}`;
    return text.replace('{"stringValue":"PLACEHOLDER"}', array);
  };
}

/** OTLP/JSON: `count` spans with ids and times only. */
function minimalJsonSpans(count: number) {
  return (nowNs: bigint, seed: number) =>
    traceRequest(
      "hostile-minimal",
      Array.from({ length: count }, (_, i) => ({ traceId: hexId(seed, 16), spanId: hexId(i, 8), startNs: nowNs })),
    );
}

/** OTLP/JSON: 12 spans of one 1 MiB attribute each: few values, a large body. */
function blobSpans(nowNs: bigint, seed: number) {
  const blob = "x".repeat(1024 * 1024);
  return traceRequest(
    "hostile-blobs",
    Array.from({ length: 12 }, (_, i) => ({
      traceId: hexId(seed, 16),
      spanId: hexId(i, 8),
      startNs: nowNs,
      attributes: { blob },
    })),
  );
}

/** What one request may decode to at the default cap: the scenarios "within the allowance" sit just under it. */
const ALLOWED = ingestLimits(16 * 1024 * 1024).maxDecodedValues;
/** Under the allowance by the request's few other values (resource, scope), rounded down to a thousand. */
const below = (values: number) => Math.floor((values - 10) / 1000) * 1000;
const WIDE_SPAN: HostileShape = { records: 1, attributes: below(ALLOWED - RECORD_UNITS) };
const MINIMAL_SPANS: HostileShape = { records: below(ALLOWED / RECORD_UNITS), attributes: 0 };
const WIDEST_BATCH: HostileShape = {
  records: COLLECTOR_BATCH_SPANS,
  attributes: Math.floor((ALLOWED - 10) / COLLECTOR_BATCH_SPANS) - RECORD_UNITS,
};
/** OTLP/JSON minimal spans are about 206 bytes: past 80,000 the body cap refuses them first. */
const JSON_MINIMAL_SPANS = Math.min(80_000, MINIMAL_SPANS.records);
const count = (n: number) => n.toLocaleString("en-US");

const SCENARIOS: { name: string; requests: Request[] }[] = [
  {
    name: "JSON: one attribute of 5.5M empty array values",
    requests: [{ signal: "traces", json: emptyArrayJson(5_500_000) }],
  },
  {
    name: "JSON: three such at once",
    requests: [0, 1, 2].map(() => ({ signal: "traces" as const, json: emptyArrayJson(5_500_000) })),
  },
  {
    name: `JSON: ${count(JSON_MINIMAL_SPANS)} minimal spans (within the allowance), four at once`,
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, json: minimalJsonSpans(JSON_MINIMAL_SPANS) })),
  },
  { name: "JSON: one span, 300,000 attributes", requests: [{ signal: "traces", json: wideJsonSpan(300_000) }] },
  {
    name: "JSON: three such at once",
    requests: [0, 1, 2].map(() => ({ signal: "traces" as const, json: wideJsonSpan(300_000) })),
  },
  {
    name: "JSON: four 12 MiB bodies of 1 MiB values at once",
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, json: blobSpans })),
  },
  {
    name: "one span, 1M one-byte attributes",
    requests: [{ signal: "traces", shape: { records: 1, attributes: 1_000_000 } }],
  },
  {
    name: "one span, one 3M-item array",
    requests: [{ signal: "traces", shape: { records: 1, attributes: 0, arrayItems: 3_000_000 } }],
  },
  {
    name: "1,000 spans x 1,000 attributes",
    requests: [{ signal: "traces", shape: { records: 1_000, attributes: 1_000 } }],
  },
  {
    name: "100,000 spans x 10 attributes",
    requests: [{ signal: "traces", shape: { records: 100_000, attributes: 10 } }],
  },
  {
    name: "one log record, 1M attributes",
    requests: [{ signal: "logs", shape: { records: 1, attributes: 1_000_000 } }],
  },
  {
    name: `one span, ${count(WIDE_SPAN.attributes)} attributes (within the allowance)`,
    requests: [{ signal: "traces", shape: WIDE_SPAN }],
  },
  {
    name: "four such spans at once (within the allowance)",
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, shape: WIDE_SPAN })),
  },
  {
    name: `${count(MINIMAL_SPANS.records)} minimal spans (within the allowance)`,
    requests: [{ signal: "traces", shape: MINIMAL_SPANS }],
  },
  {
    name: "four such requests at once (within the allowance)",
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, shape: MINIMAL_SPANS })),
  },
  {
    name: `8,192 spans x ${WIDEST_BATCH.attributes} one-byte attributes (within the allowance)`,
    requests: [{ signal: "traces", shape: WIDEST_BATCH }],
  },
  {
    name: "four such batches at once (within the allowance)",
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, shape: WIDEST_BATCH })),
  },
  {
    name: "Collector: 8,192 server spans x 15 attributes",
    requests: [{ signal: "traces", collector: { spans: COLLECTOR_BATCH_SPANS, attributes: 15 } }],
  },
  {
    name: "Collector JSON: 8,192 server spans x 15 attributes",
    requests: [{ signal: "traces", collector: { spans: COLLECTOR_BATCH_SPANS, attributes: 15, json: true } }],
  },
  {
    name: "Collector: 4,096 server spans x 30 attributes",
    requests: [{ signal: "traces", collector: { spans: 4_096, attributes: 30 } }],
  },
  {
    name: "Collector: four 8,192 x 15 batches at once, two in JSON",
    requests: [0, 1, 2, 3].map((i) => ({
      signal: "traces" as const,
      collector: { spans: COLLECTOR_BATCH_SPANS, attributes: 15, json: i % 2 === 1 },
    })),
  },
  {
    name: "three 1M-attribute spans at once",
    requests: [0, 1, 2].map(() => ({ signal: "traces" as const, shape: { records: 1, attributes: 1_000_000 } })),
  },
  {
    name: "a mix of four at once",
    requests: [
      { signal: "traces", shape: { records: 1, attributes: 1_000_000 } },
      { signal: "traces", shape: { records: 1, attributes: 0, arrayItems: 3_000_000 } },
      { signal: "logs", shape: { records: 1_000, attributes: 1_000 } },
      { signal: "traces", shape: { records: 100_000, attributes: 10 } },
    ],
  },
];

function jsonText(body: unknown): string {
  return typeof body === "string" ? body : JSON.stringify(body);
}

function bodyOf(request: Request, nowNs: bigint, seed: number): Buffer {
  if (request.json) return Buffer.from(jsonText(request.json(nowNs, seed)));
  const batch = request.collector;
  if (batch?.json) return Buffer.from(JSON.stringify(collectorBatch(batch.spans, batch.attributes, nowNs, seed)));
  if (batch) return collectorBatchProtobuf(batch.spans, batch.attributes, nowNs, seed);
  return hostileBody(request.signal, request.shape as HostileShape, nowNs, seed);
}

async function run(scenario: (typeof SCENARIOS)[number]): Promise<Record<string, unknown>> {
  const now = BigInt(Date.now()) * 1_000_000n;
  const bodies = scenario.requests.map((request, i) => ({
    ...request,
    contentType: request.json || request.collector?.json ? "application/json" : "application/x-protobuf",
    body: bodyOf(request, now, i),
  }));
  const obsd = await startCollectorProcess();
  try {
    const pid = obsd.child.pid as number;
    const before = rssMiB(pid);
    const answers = await Promise.all(
      bodies.map((request) =>
        http(`${obsd.url}/v1/${request.signal}`, {
          method: "POST",
          headers: { "content-type": request.contentType },
          body: request.body,
        }),
      ),
    );
    const peakMb = peakRss(pid) / MB;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    return {
      scenario: scenario.name,
      "body MB": bodies.map((b) => round(b.body.length / MB)).join(" + "),
      statuses: answers.map((a) => a.status).join(" "),
      "RSS before MiB": before,
      "peak RSS MB": round(peakMb),
      "RSS after 3 s MiB": rssMiB(pid),
      "under target": peakMb < TARGET_MB,
    };
  } finally {
    await obsd.stop();
  }
}

async function main(): Promise<void> {
  const rows: Record<string, unknown>[] = [];
  const only = process.env.BENCH_ONLY?.split("|");
  for (const scenario of SCENARIOS) {
    if (!only || only.some((text) => scenario.name.includes(text))) rows.push(await run(scenario));
  }
  console.table(rows);
  const worst = Math.max(...rows.map((row) => row["peak RSS MB"] as number));
  console.log(`highest peak RSS: ${worst} MB (target: under ${TARGET_MB} MB)`);
}

await main();

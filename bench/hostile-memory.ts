/**
 * obsd's peak resident memory under requests built to cost the most memory a body within the
 * cap can: a million one-byte attributes on one span, a three-million-item array, many spans
 * of many attributes, the same on log records, and three such requests at once. Each scenario
 * runs on a fresh obsd (peak RSS is a high-water mark), with the default 16 MiB body cap.
 * Prints, per scenario: body size, the answers' statuses, peak RSS, and RSS 3 s afterwards.
 * Target (issue 32): peak RSS under 400 MB for any mix of requests within the body cap.
 *   BENCH_ONLY: run only the scenarios whose name contains this text.
 */
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

const SCENARIOS: { name: string; requests: Request[] }[] = [
  {
    name: "JSON: one attribute of 5.5M empty array values",
    requests: [{ signal: "traces", json: emptyArrayJson(5_500_000) }],
  },
  {
    name: "JSON: three such at once",
    requests: [0, 1, 2].map(() => ({ signal: "traces" as const, json: emptyArrayJson(5_500_000) })),
  },
  { name: "JSON: 80,000 minimal spans", requests: [{ signal: "traces", json: minimalJsonSpans(80_000) }] },
  {
    name: "JSON: 60,000 minimal spans (within the allowance), four at once",
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, json: minimalJsonSpans(60_000) })),
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
    name: "one span, 130,000 attributes (within the allowance)",
    requests: [{ signal: "traces", shape: { records: 1, attributes: 130_000 } }],
  },
  {
    name: "four such spans at once",
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, shape: { records: 1, attributes: 130_000 } })),
  },
  {
    name: "65,000 minimal spans (within the allowance)",
    requests: [{ signal: "traces", shape: { records: 65_000, attributes: 0 } }],
  },
  {
    name: "four such requests at once",
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, shape: { records: 65_000, attributes: 0 } })),
  },
  {
    name: "8,192 spans x 12 attributes (a collector's batch)",
    requests: [{ signal: "traces", shape: { records: 8_192, attributes: 12 } }],
  },
  {
    name: "four such batches at once",
    requests: [0, 1, 2, 3].map(() => ({ signal: "traces" as const, shape: { records: 8_192, attributes: 12 } })),
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

async function run(scenario: (typeof SCENARIOS)[number]): Promise<Record<string, unknown>> {
  const now = BigInt(Date.now()) * 1_000_000n;
  const bodies = scenario.requests.map((request, i) => ({
    ...request,
    contentType: request.json ? "application/json" : "application/x-protobuf",
    body: request.json
      ? Buffer.from(jsonText(request.json(now, i)))
      : hostileBody(request.signal, request.shape as HostileShape, now, i),
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
  const only = process.env.BENCH_ONLY;
  for (const scenario of SCENARIOS) if (!only || scenario.name.includes(only)) rows.push(await run(scenario));
  console.table(rows);
  const worst = Math.max(...rows.map((row) => row["peak RSS MB"] as number));
  console.log(`highest peak RSS: ${worst} MB (target: under ${TARGET_MB} MB)`);
}

await main();

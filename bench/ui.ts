/**
 * The web UI's figures (issue 37): time from navigation to the waterfall painted, and to every
 * page of spans in, for traces of 1,000, 10,000 and 100,000 spans, measured in headless
 * Chromium by the view's performance marks (`obs:waterfall-painted`, `obs:waterfall-complete`,
 * both from navigation start); targets: painted under 300 ms, 1 s and 3 s. And the bundle's
 * gzipped size (target: under 250 KB). A real obsd with a temporary state folder receives the
 * traces over OTLP/HTTP. Prints figures; asserts nothing.
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { startBrowser } from "../client/checks/browser/browser-session.js";
import { locateChromium } from "../client/checks/browser/engines.js";
import { packagePath } from "../shared/package-root.js";
import { traceUrl } from "../shared/ui-links.js";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { hexId } from "../test/helpers/otlp-builders.js";
import { sendSpans, type UiSpan } from "../test/helpers/ui-data.js";
import { percentile, round } from "./measure.js";

const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const TARGETS_MS: Record<number, number> = { 1000: 300, 10000: 1000, 100000: 3000 };
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BATCH = 2000;
// Deep enough that 2 to 6 children a span always reach 100,000 spans (at 8, some seeds stop near 50,000).
const MAX_DEPTH = 10;
const BUNDLE_TARGET_BYTES = 250 * 1024;

const SERVICES = ["web", "checkout", "payments", "inventory", "search", "auth"];
const OPERATIONS = [
  "GET /api/items",
  "SELECT items",
  "cache.get",
  "render",
  "POST /charge",
  "publish order",
  "auth.check",
];

/** A deterministic pseudo-random sequence (an LCG), so every run sends the same traces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * A trace of `count` spans filled breadth-first: each span has 2 to 6 children (up to depth
 * MAX_DEPTH) sharing its time range in turn, a service and name drawn from a few, and a few
 * attributes; about one span in 200 fails.
 */
function realisticTrace(count: number, serial: number, nowNs: bigint): { traceId: string; spans: UiSpan[] } {
  const traceId = hexId(0x900000 + serial, 16);
  const next = random(serial + 7);
  const spans: UiSpan[] = [];
  const depth: number[] = [];
  const at = nowNs - 60_000_000_000n;
  const add = (parent: number | null, startNs: bigint, endNs: bigint) => {
    const k = spans.length;
    const service = SERVICES[Math.floor(next() * SERVICES.length)] as string;
    spans.push({
      service,
      traceId,
      spanId: hexId(0x10000000 + serial * 1_000_000 + k, 8),
      parentSpanId: parent === null ? null : (spans[parent] as UiSpan).spanId,
      name: OPERATIONS[Math.floor(next() * OPERATIONS.length)] as string,
      startNs,
      endNs,
      error: next() < 0.005,
      attributes: { "http.route": "/api/items", "db.system": "postgresql", "item.index": k, "cache.hit": next() < 0.5 },
    });
    depth.push(parent === null ? 0 : (depth[parent] as number) + 1);
  };
  add(null, at, at + BigInt(count) * 100_000n);
  for (let parent = 0; parent < spans.length && spans.length < count; parent++) {
    if ((depth[parent] as number) >= MAX_DEPTH) continue;
    const { startNs, endNs } = spans[parent] as UiSpan;
    const children = Math.min(2 + Math.floor(next() * 5), count - spans.length);
    const slot = (endNs - startNs) / BigInt(children);
    for (let c = 0; c < children; c++) {
      const from = startNs + slot * BigInt(c) + slot / 20n;
      add(parent, from, from + (slot * BigInt(70 + Math.floor(next() * 25))) / 100n);
    }
  }
  if (spans.length < count) throw new Error(`the trace generator made ${spans.length} spans, not ${count}`);
  return { traceId, spans };
}

interface Marks {
  paintedMs: number;
  completeMs: number;
  /** When the first answer (getTrace) was in, from navigation start; and all the trace's API answers' time added up. */
  firstAnswerMs: number;
  apiMs: number;
}

async function main(): Promise<void> {
  const web = ["assets/app.js", "assets/app.css", "index.html"].map((name) => {
    const bytes = readFileSync(packagePath("dist", "web", name));
    return { name, bytes: bytes.length, gzipped: gzipSync(bytes).length };
  });
  const bundleGzipped = web.reduce((sum, file) => sum + file.gzipped, 0);
  console.log(
    `bundle: ${web.map((f) => `${f.name} ${f.gzipped} B`).join(", ")} gzipped; ${bundleGzipped} B in all (target < ${BUNDLE_TARGET_BYTES} B)`,
  );

  const obsd = await startCollectorProcess({ args: ["--max-db-size", "4GiB"] });
  const session = await startBrowser({
    launch: { engine: "engine_a", ...locateChromium(process.env) },
    headed: false,
    viewport: { width: 1280, height: 800 },
  });
  const rows: Record<string, number | boolean>[] = [];
  // Stopped early (Ctrl-C), it still ends the browser and the collector it started.
  const stop = () => {
    void Promise.allSettled([session.close(), obsd.stop()]).then(() => process.exit(130));
  };
  process.once("SIGINT", stop).once("SIGTERM", stop);
  try {
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const traces = SIZES.map((size, i) => ({ size, ...realisticTrace(size, i + 1, nowNs) }));
    for (const trace of traces) {
      const started = Date.now();
      for (let i = 0; i < trace.spans.length; i += BATCH) await sendSpans(obsd.url, trace.spans.slice(i, i + BATCH));
      await waitForSpans(obsd.url, trace.traceId, trace.size);
      console.log(`sent and stored ${trace.size} spans in ${round((Date.now() - started) / 1000, 1)} s`);
    }
    for (const trace of traces) {
      const marks: Marks[] = [];
      for (let run = 0; run < RUNS; run++)
        marks.push(await openAndMeasure(session.browser, traceUrl(obsd.url, trace.traceId)));
      const painted = marks.map((m) => m.paintedMs);
      const complete = marks.map((m) => m.completeMs);
      const firstAnswer = marks.map((m) => m.firstAnswerMs);
      const api = marks.map((m) => m.apiMs);
      const targetMs = TARGETS_MS[trace.size] ?? 3000;
      const row = {
        spans: trace.size,
        runs: RUNS,
        paintedP50Ms: round(percentile(painted, 50), 0),
        completeP50Ms: round(percentile(complete, 50), 0),
        getTraceInP50Ms: round(percentile(firstAnswer, 50), 0),
        apiTotalP50Ms: round(percentile(api, 50), 0),
        targetMs,
        met: percentile(painted, 50) < targetMs,
      };
      rows.push(row);
      console.log(
        `${trace.size} spans: painted p50 ${row.paintedP50Ms} ms (target < ${targetMs} ms), all pages in p50 ${row.completeP50Ms} ms (getTrace answered at ${row.getTraceInP50Ms} ms, all span answers ${row.apiTotalP50Ms} ms), over ${RUNS} loads`,
      );
    }
  } finally {
    process.off("SIGINT", stop).off("SIGTERM", stop);
    await session.close();
    await obsd.stop();
  }
  console.table(rows);
  console.log(JSON.stringify({ benchmark: "ui", bundle: { files: web, gzipped: bundleGzipped }, waterfall: rows }));
}

async function waitForSpans(url: string, traceId: string, count: number): Promise<void> {
  for (let tries = 0; tries < 1500; tries++) {
    const answer = await fetch(`${url}/api/traces/${traceId}?limit=1`);
    if (answer.status === 200 && ((await answer.json()) as { data: { spanCount: number } }).data.spanCount === count)
      return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the store never held the ${count} spans of ${traceId}`);
}

/** Loads a trace's page afresh and reads the view's marks (ms from navigation start). */
async function openAndMeasure(
  browser: Awaited<ReturnType<typeof startBrowser>>["browser"],
  url: string,
): Promise<Marks> {
  await browser.url("about:blank");
  await browser.url(url);
  const script = `const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
    const api = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/traces/"));
    return [at("obs:waterfall-painted"), at("obs:waterfall-complete"), api[0]?.responseEnd ?? 0,
      api.reduce((sum, e) => sum + e.duration, 0)];`;
  let marks: (number | null)[] = [null, null, 0, 0];
  await browser.waitUntil(
    async () => {
      marks = (await browser.execute(script)) as unknown as (number | null)[];
      return marks[0] !== null && marks[1] !== null;
    },
    { timeout: 300_000, interval: 50, timeoutMsg: `the waterfall of ${url} never completed` },
  );
  const [paintedMs, completeMs, firstAnswerMs, apiMs] = marks as number[];
  return { paintedMs, completeMs, firstAnswerMs, apiMs } as Marks;
}

await main();

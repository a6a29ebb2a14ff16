import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import Database from "better-sqlite3";
import { expect } from "chai";
import { decodeTraceJsonNatively } from "../../daemon/otlp/native-json-traces.js";
import { idHex, optionalIdHex } from "../../daemon/store/stored-ids.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { otlpFixture } from "../helpers/fixtures.js";
import { protobufOf } from "../helpers/fuzz-payloads.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

const run = promisify(execFile);
const NOW = BigInt(Date.now()) * 1_000_000n;
// The spec's fixtures are from 2018: keep them past the default 7-day retention.
const KEEP_OLD = ["--retention", "36500d"];

interface Counts {
  services: number;
  traces: number;
  spans: number;
  logs: number;
}

async function counts(url: string): Promise<Counts> {
  return (await http(`${url}/api/health`)).json().counts;
}

/** Peak resident memory of a process, from /proc. */
function peakRssBytes(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

describe("ingestion over HTTP (real obsd)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;
  let files: ReturnType<typeof tempDir>;

  before(async () => {
    obsd = await startCollectorProcess({ args: KEEP_OLD });
    files = tempDir();
  });
  after(async () => {
    expect(await obsd.stop()).to.equal(0);
    files.cleanup();
  });

  it("accepts the spec's OTLP/JSON samples from curl, and the data is visible at once", async () => {
    const tracePath = join(files.path, "trace.json");
    const logsPath = join(files.path, "logs.json");
    writeFileSync(tracePath, otlpFixture("trace"));
    writeFileSync(logsPath, otlpFixture("logs"));
    const traces = await run("curl", [
      "-sS",
      "-X",
      "POST",
      "-H",
      "Content-Type: application/json",
      "--data-binary",
      `@${tracePath}`,
      `${obsd.url}/v1/traces`,
    ]);
    expect(JSON.parse(traces.stdout)).to.deep.equal({ accepted: 1 });
    const logs = await run("curl", [
      "-sS",
      "-X",
      "POST",
      "-H",
      "Content-Type: application/json",
      "--data-binary",
      `@${logsPath}`,
      `${obsd.url}/v1/logs`,
    ]);
    expect(JSON.parse(logs.stdout)).to.deep.equal({ accepted: 1 });
    // The samples' timestamps are from 2018: no service has telemetry in the last 15 minutes.
    expect(await counts(obsd.url)).to.include({ spans: 1, logs: 1, traces: 1, services: 0 });
  });

  it("accepts gzip bodies and JSON with a charset parameter", async () => {
    const body = gzipSync(
      JSON.stringify(traceRequest("gz", [{ traceId: hexId(100, 16), spanId: hexId(100, 8), startNs: NOW }])),
    );
    const res = await http(`${obsd.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "content-encoding": "gzip" },
      body,
    });
    expect(res.status).to.equal(200);
    expect(res.json()).to.deep.equal({ accepted: 1 });
  });

  it("stores the same span whichever JSON decoder takes the request, native or JavaScript", async () => {
    const attributes = [
      { key: "text", value: { stringValue: 'é "quoted" \n 😀' } },
      { key: "ratio", value: { doubleValue: 0.1 } },
      { key: "count", value: { intValue: "42" } },
      { key: "list", value: { arrayValue: { values: [{ boolValue: true }, { doubleValue: 1e21 }] } } },
    ];
    const request = (traceId: string, extra: unknown[]) => ({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "decoders" } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId,
                  spanId: hexId(1, 8),
                  name: "op",
                  startTimeUnixNano: NOW.toString(),
                  attributes: [...attributes, ...extra],
                },
              ],
            },
          ],
        },
      ],
    });
    // The native decoder takes the first; a 64-bit integer past 2^53 sends the second to JavaScript.
    const native = Buffer.from(JSON.stringify(request(hexId(9300, 16), [])));
    const declined = Buffer.from(
      JSON.stringify(request(hexId(9301, 16), [{ key: "big", value: { intValue: "9007199254740993" } }])),
    );
    expect(decodeTraceJsonNatively(native)).not.to.equal(undefined);
    expect(decodeTraceJsonNatively(declined)).to.equal(undefined);
    const stored = async (body: Buffer, traceId: string) => {
      const res = await http(`${obsd.url}/v1/traces`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(res.json()).to.deep.equal({ accepted: 1 });
      return (await http(`${obsd.url}/api/traces/${traceId}?include=attributes`)).json().data.tree[0].attributes;
    };
    const expected = { text: 'é "quoted" \n 😀', ratio: 0.1, count: 42, list: [true, 1e21] };
    expect(await stored(native, hexId(9300, 16))).to.deep.equal(expected);
    expect(await stored(declined, hexId(9301, 16))).to.deep.equal({ ...expected, big: "9007199254740993" });
  });

  it("stores a resent batch once, and still acknowledges every record", async () => {
    const request = traceRequest("idem", [
      { traceId: hexId(200, 16), spanId: hexId(1, 8), startNs: NOW },
      { traceId: hexId(200, 16), spanId: hexId(2, 8), parentSpanId: hexId(1, 8), startNs: NOW },
    ]);
    const logs = logsRequest("idem", [{ timeNs: NOW, body: "once" }]);
    const before = await counts(obsd.url);
    for (let i = 0; i < 3; i++) {
      expect((await postJson(`${obsd.url}/v1/traces`, request)).json()).to.deep.equal({ accepted: 2 });
      expect((await postJson(`${obsd.url}/v1/logs`, logs)).json()).to.deep.equal({ accepted: 1 });
    }
    const after = await counts(obsd.url);
    expect(after.spans - before.spans).to.equal(2);
    expect(after.traces - before.traces).to.equal(1);
    expect(after.logs - before.logs).to.equal(1);
  });

  it("answers each of many concurrent exports with its own count and stores every record once", async () => {
    // Concurrent requests share transactions; copies of one batch may land in the same one.
    const batches = Array.from({ length: 12 }, (_, b) =>
      traceRequest(`concurrent-${b % 3}`, [
        { traceId: hexId(300 + b, 16), spanId: hexId(1, 8), startNs: NOW },
        ...Array.from({ length: b }, (_, i) => ({
          traceId: hexId(300 + b, 16),
          spanId: hexId(2 + i, 8),
          parentSpanId: hexId(1, 8),
          startNs: NOW + BigInt(i),
        })),
      ]),
    );
    const logs = Array.from({ length: 6 }, (_, b) =>
      logsRequest("concurrent-logs", [
        { timeNs: NOW + BigInt(b), body: `first ${b}` },
        { timeNs: NOW + BigInt(b), body: `second ${b}` },
      ]),
    );
    const before = await counts(obsd.url);
    const sent = [...batches, ...batches, ...logs, ...logs].map((body) =>
      postJson(`${obsd.url}/v1/${"resourceSpans" in body ? "traces" : "logs"}`, body),
    );
    const answers = (await Promise.all(sent)).map((res) => res.json().accepted);
    const spansPerBatch = batches.map((_, b) => b + 1);
    expect(answers).to.deep.equal([...spansPerBatch, ...spansPerBatch, ...logs.map(() => 2), ...logs.map(() => 2)]);
    const after = await counts(obsd.url);
    expect(after.spans - before.spans).to.equal(spansPerBatch.reduce((a, b) => a + b, 0));
    expect(after.traces - before.traces).to.equal(12);
    expect(after.logs - before.logs).to.equal(12);
  });

  it("answers empty requests with zero", async () => {
    expect((await postJson(`${obsd.url}/v1/traces`, "")).json()).to.deep.equal({ accepted: 0 });
    expect((await postJson(`${obsd.url}/v1/logs`, {})).json()).to.deep.equal({ accepted: 0 });
    const proto = await http(`${obsd.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf" },
      body: Buffer.alloc(0),
    });
    expect(proto.status).to.equal(200);
    // Declared gzip, a body must be a gzip stream: a gzip of nothing is one, an empty body is not.
    const gzipped = (body: Buffer) =>
      http(`${obsd.url}/v1/logs`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
        body,
      });
    expect((await gzipped(gzipSync(Buffer.alloc(0)))).json()).to.deep.equal({ accepted: 0 });
    const empty = await gzipped(Buffer.alloc(0));
    expect([empty.status, empty.json().error]).to.deep.equal([
      400,
      "invalid gzip body: the body is empty, and a gzip stream has at least a 20-byte header and trailer",
    ]);
  });

  it("refuses invalid payloads with 400 and says where", async () => {
    const bad = await postJson(`${obsd.url}/v1/traces`, {
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "xyz", spanId: "0102030405060708" }] }] }],
    });
    expect(bad.status).to.equal(400);
    expect(bad.json().error).to.match(/resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId/);
    expect((await postJson(`${obsd.url}/v1/logs`, "{oops")).status).to.equal(400);
    const badProto = await http(`${obsd.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/x-protobuf" },
      body: Buffer.from([0x0a, 0xff, 0xff]),
    });
    expect(badProto.status).to.equal(400);
    const badGzip = await http(`${obsd.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: "not gzip",
    });
    expect(badGzip.status).to.equal(400);
    expect(badGzip.json().error).to.match(/gzip/);
  });

  it("refuses other methods with 405 and an Allow header", async () => {
    for (const path of ["/v1/traces", "/v1/logs"]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await http(`${obsd.url}${path}`, { method });
        expect(res.status, `${method} ${path}`).to.equal(405);
        expect(res.headers.allow).to.match(/POST/);
        expect(res.json().error).to.be.a("string");
      }
    }
    expect((await http(`${obsd.url}/api/health`, { method: "POST" })).status).to.equal(405);
  });

  it("refuses unsupported content types and encodings with 415", async () => {
    for (const type of ["text/plain", "application/xml", "application/jsonx"]) {
      const res = await http(`${obsd.url}/v1/traces`, {
        method: "POST",
        headers: { "content-type": type },
        body: "{}",
      });
      expect(res.status, type).to.equal(415);
    }
    const none = await http(`${obsd.url}/v1/logs`, { method: "POST", body: "{}" });
    expect(none.status).to.equal(415);
    const br = await http(`${obsd.url}/v1/logs`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "br" },
      body: "{}",
    });
    expect(br.status).to.equal(415);
  });

  it("refuses bodies over the cap with 413, declared or streamed", async () => {
    const big = Buffer.alloc(16 * 1024 * 1024 + 1, 0x20);
    const declared = await http(`${obsd.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: big,
    });
    expect(declared.status).to.equal(413);
    const chunked = await new Promise<number>((resolve, reject) => {
      import("node:http").then(({ request }) => {
        const req = request(
          `${obsd.url}/v1/traces`,
          { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        for (let i = 0; i < 17; i++) req.write(Buffer.alloc(1024 * 1024, 0x20));
        req.end();
      }, reject);
    });
    expect(chunked).to.equal(413);
  });

  it("stops inflating a gzip bomb at the cap without holding it in memory", async () => {
    // 256 MiB of zeros compresses to about 256 KiB: 16 times the cap once inflated.
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024), { level: 9 });
    expect(bomb.length).to.be.lessThan(512 * 1024);
    const started = Date.now();
    const res = await http(`${obsd.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: bomb,
    });
    expect(res.status).to.equal(413);
    expect(res.json().error).to.match(/inflated/);
    expect(Date.now() - started).to.be.lessThan(5_000);
    expect(peakRssBytes(obsd.child.pid!)).to.be.lessThan(250 * 1024 * 1024);
    expect((await http(`${obsd.url}/api/health`)).status).to.equal(200);
  });

  it("stores a request of more records than the writer takes at a time whole, with parents found across its slices", async () => {
    // The writer stores a request 4,096 records at a time (writer-worker.ts). Here every child
    // comes before the root, most of them in an earlier slice, and one parent is never sent.
    const traceId = hexId(900, 16);
    const root = hexId(9_999, 8);
    const spans = Array.from({ length: 9_000 }, (_, i) => ({
      traceId,
      spanId: i === 8_999 ? root : hexId(i, 8),
      ...(i === 8_999 ? {} : { parentSpanId: i === 5 ? hexId(123_456, 8) : root }),
      startNs: NOW + BigInt(i),
    }));
    const logs = (part: number) =>
      Array.from({ length: 9_000 }, (_, i) => ({ timeNs: NOW + BigInt(i), body: `sliced ${part} ${i}` }));
    const before = await counts(obsd.url);
    // Sent together, each over the 8,192 records a transaction starts with, so the later two
    // queue up while the first is written and are committed one after the other.
    const answers = await Promise.all([
      postJson(`${obsd.url}/v1/traces`, traceRequest("sliced", spans)),
      postJson(`${obsd.url}/v1/logs`, logsRequest("sliced", logs(1))),
      postJson(`${obsd.url}/v1/logs`, logsRequest("sliced", logs(2))),
    ]);
    expect(answers.map((res) => res.json())).to.deep.equal([
      { accepted: 9_000 },
      { accepted: 9_000 },
      { accepted: 9_000 },
    ]);
    const after = await counts(obsd.url);
    expect([after.spans - before.spans, after.traces - before.traces, after.logs - before.logs]).to.deep.equal([
      9_000, 1, 18_000,
    ]);
    const db = new Database(obsd.dbPath, { readonly: true });
    try {
      const orphans = db
        .prepare(`SELECT ${idHex("span_id")} FROM orphan_spans WHERE trace_id = unhex(?)`)
        .pluck()
        .all(traceId);
      expect(orphans).to.deep.equal([hexId(5, 8)]);
      const trace = db
        .prepare(
          `SELECT span_count, ${optionalIdHex("root_span_id")} AS root_span_id FROM traces WHERE trace_id = unhex(?)`,
        )
        .get(traceId);
      expect(trace).to.deep.equal({ span_count: 9_000, root_span_id: root });
    } finally {
      db.close();
    }
  });

  it("answers concurrent requests that together are more than the pipeline holds at once", async () => {
    // A 12 MiB body is charged most of the budget until decoded, then its size (ingest-limits.ts):
    // the others wait for it, and the third for one of the first two.
    const blob = "x".repeat(1024 * 1024);
    const request = (b: number) =>
      traceRequest(
        `budget-${b}`,
        Array.from({ length: 12 }, (_, i) => ({
          traceId: hexId(700 + b, 16),
          spanId: hexId(i, 8),
          startNs: NOW,
          attributes: { blob },
        })),
      );
    const answers = await Promise.all([0, 1, 2].map((b) => postJson(`${obsd.url}/v1/traces`, request(b))));
    expect(answers.map((res) => [res.status, res.json().accepted])).to.deep.equal([
      [200, 12],
      [200, 12],
      [200, 12],
    ]);
  });

  it("refuses a foreign Host header (DNS rebinding) but answers loopback names", async () => {
    const evil = await http(`${obsd.url}/api/health`, { headers: { host: `evil.example:${obsd.port}` } });
    expect(evil.status).to.equal(403);
    expect(evil.json().error).to.match(/not allowed/);
    const postEvil = await http(`${obsd.url}/v1/traces`, {
      method: "POST",
      headers: { host: "evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(postEvil.status).to.equal(403);
    expect((await http(`${obsd.url}/api/health`, { headers: { host: `localhost:${obsd.port}` } })).status).to.equal(
      200,
    );
  });

  it("sends CORS headers on /v1 to loopback origins only, and none on query routes", async () => {
    const preflight = await http(`${obsd.url}/v1/traces`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers["access-control-allow-origin"]).to.equal("http://localhost:5173");
    const foreign = await http(`${obsd.url}/v1/traces`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example" },
    });
    expect(foreign.headers["access-control-allow-origin"]).to.equal(undefined);
    const health = await http(`${obsd.url}/api/health`, { headers: { origin: "http://localhost:5173" } });
    expect(health.headers["access-control-allow-origin"]).to.equal(undefined);
  });

  it("sends the CORS headers with an export's answer to loopback origins only", async () => {
    const body = JSON.stringify(logsRequest("cors-page", [{ timeNs: NOW, body: "from a page" }]));
    const post = (origin: string) =>
      http(`${obsd.url}/v1/logs`, { method: "POST", headers: { origin, "content-type": "application/json" }, body });
    const local = await post("http://localhost:5173");
    expect(local.status).to.equal(200);
    expect(local.headers["access-control-allow-origin"]).to.equal("http://localhost:5173");
    expect(local.headers.vary).to.equal("Origin");
    const foreign = await post("https://evil.example");
    expect(foreign.status).to.equal(200);
    expect(foreign.headers["access-control-allow-origin"]).to.equal(undefined);
  });

  it("answers an export alike sent to its exact path (straight from the server) or through the router", async () => {
    // `/v1/logs` is answered by exportListener, `/v1/logs/` by the express route. Each answer is
    // what exporters got from the express route alone: its status and Content-Type, a
    // Content-Length (never chunked), and the CORS headers for a loopback page.
    const logs = (service: string, timeNs: bigint) => logsRequest(service, [{ timeNs, body: "alike" }]);
    const json = { "content-type": "application/json" };
    const JSON_TYPE = "application/json; charset=utf-8";
    const cases: {
      name: string;
      headers: Record<string, string>;
      body: (path: string) => Buffer | string;
      status: number;
      type: string;
    }[] = [
      {
        name: "JSON",
        headers: json,
        body: (path) => JSON.stringify(logs(`alike${path}`, NOW)),
        status: 200,
        type: JSON_TYPE,
      },
      {
        name: "protobuf",
        headers: { "content-type": "application/x-protobuf" },
        body: (path) => protobufOf("logs", logs(`alike-pb${path}`, NOW)),
        status: 200,
        type: "application/x-protobuf",
      },
      {
        name: "gzip from a loopback page",
        headers: { ...json, "content-encoding": "gzip", origin: "http://127.0.0.1:3000" },
        body: (path) => gzipSync(JSON.stringify(logs(`alike-gz${path}`, NOW))),
        status: 200,
        type: JSON_TYPE,
      },
      {
        name: "partial success",
        headers: json,
        body: (path) => JSON.stringify(logs(`alike-old${path}`, 1n)),
        status: 200,
        type: JSON_TYPE,
      },
      {
        name: "unsupported type",
        headers: { "content-type": "text/plain" },
        body: () => "{}",
        status: 415,
        type: JSON_TYPE,
      },
      { name: "invalid JSON", headers: json, body: () => "{", status: 400, type: JSON_TYPE },
      {
        name: "invalid gzip",
        headers: { ...json, "content-encoding": "gzip" },
        body: () => "not gzip",
        status: 400,
        type: JSON_TYPE,
      },
      {
        name: "over the cap, from a loopback page",
        headers: { ...json, origin: "http://localhost:5173" },
        body: () => Buffer.alloc(16 * 1024 * 1024 + 1, 0x20),
        status: 413,
        type: JSON_TYPE,
      },
    ];
    const answer = async (path: string, c: (typeof cases)[number]) => {
      const res = await http(`${obsd.url}${path}`, { method: "POST", headers: c.headers, body: c.body(path) });
      const { "content-type": type, "content-length": length, "transfer-encoding": chunked, ...rest } = res.headers;
      const cors = Object.fromEntries(Object.entries(rest).filter(([name]) => /^access-control-|^vary$/.test(name)));
      return { status: res.status, type, length, chunked, cors, body: res.body.toString("utf8") };
    };
    const corsFor = (origin: string | undefined) =>
      origin === undefined
        ? {}
        : {
            "access-control-allow-origin": origin,
            "access-control-allow-methods": "POST, OPTIONS",
            "access-control-allow-headers": "Content-Type, Content-Encoding",
            "access-control-max-age": "600",
            vary: "Origin",
          };
    for (const c of cases) {
      const direct = await answer("/v1/logs", c);
      expect([direct.status, direct.type], c.name).to.deep.equal([c.status, c.type]);
      expect([direct.length, direct.chunked], c.name).to.deep.equal([
        String(Buffer.byteLength(direct.body)),
        undefined,
      ]);
      expect(direct.cors, c.name).to.deep.equal(corsFor(c.headers.origin));
      expect(await answer("/v1/logs/", c), c.name).to.deep.equal(direct);
    }
  });

  it("refuses OTLP/JSON that is not UTF-8 with 400 on every signal's path, storing nothing of it", async () => {
    const before = await counts(obsd.url);
    const json = { "content-type": "application/json" };
    const resource = '{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"not-utf8-BAD"}}]}';
    const bodies: Record<string, string> = {
      "/v1/traces": `{"resourceSpans":[${resource},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"x","startTimeUnixNano":"${NOW}","endTimeUnixNano":"${NOW + 1n}"}]}]}]}`,
      "/v1/logs": `{"resourceLogs":[${resource},"scopeLogs":[{"logRecords":[{"timeUnixNano":"${NOW}","body":{"stringValue":"b"}}]}]}]}`,
      "/v1/metrics": `{"resourceMetrics":[${resource},"scopeMetrics":[{"metrics":[{"name":"m","gauge":{"dataPoints":[{"timeUnixNano":"${NOW}","asDouble":1}]}}]}]}]}`,
    };
    for (const [path, text] of Object.entries(bodies)) {
      const [head, tail] = text.split("BAD") as [string, string];
      const body = Buffer.concat([Buffer.from(head), Buffer.from([0xc3, 0x28]), Buffer.from(tail)]);
      const res = await http(`${obsd.url}${path}`, { method: "POST", headers: json, body });
      expect([res.status, JSON.parse(res.body.toString("utf8")).error], path).to.deep.equal([
        400,
        `invalid OTLP ${path.slice(4)} payload: invalid JSON: the body is not valid UTF-8`,
      ]);
    }
    const after = await counts(obsd.url);
    expect(after).to.deep.equal(before);
  });

  it("answers 503 with Retry-After and acknowledges nothing while another program holds the store locked", async function () {
    this.timeout(30_000);
    // Another connection holds the write lock past the writer's 5 s busy timeout.
    const blocker = new Database(obsd.dbPath);
    blocker.exec("BEGIN IMMEDIATE");
    try {
      const res = await postJson(`${obsd.url}/v1/logs`, logsRequest("locked", [{ timeNs: NOW, body: "lost?" }]));
      expect(res.status).to.equal(503);
      expect(res.headers["retry-after"]).to.equal("1");
      expect(res.json().error).to.match(/store unavailable: database is locked/);
    } finally {
      blocker.exec("ROLLBACK");
      blocker.close();
    }
    const retry = await postJson(`${obsd.url}/v1/logs`, logsRequest("locked", [{ timeNs: NOW, body: "lost?" }]));
    expect(retry.status).to.equal(200);
  });
});

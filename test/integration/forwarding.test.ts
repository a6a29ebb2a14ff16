import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createH2cServer, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { gunzipSync } from "node:zlib";
import Database from "better-sqlite3";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { nsToIso } from "../../shared/time.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";
import { otlpTypes } from "../helpers/otlp-protobuf.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";
import { tempDir } from "../helpers/temp-dir.js";

/**
 * The tests' records are dated now, as of each test's start: a time taken when the file loads
 * is older than the traces list's default window once the suite has run a quarter hour.
 */
let NOW = BigInt(Date.now()) * 1_000_000n;
const renewNow = () => {
  NOW = BigInt(Date.now()) * 1_000_000n;
};
const SECRET = "s3cr3t-api-key-4f9a";
const validateEnvelope = cliDocumentValidator();

interface Counts {
  spans: number;
  logs: number;
  points: number;
}

/** A batch of `n` spans of one trace (its number `t`), as OTLP/JSON. */
function spans(t: number, n: number) {
  return traceRequest(
    "checkout",
    Array.from({ length: n }, (_, i) => ({
      traceId: hexId(t, 16),
      spanId: hexId(t * 1000 + i, 8),
      name: `op-${i}`,
      startNs: NOW - BigInt(i) * 1_000_000n,
      attributes: { "http.route": "/cart", i },
    })),
  );
}

function logs(t: number, n: number) {
  return logsRequest(
    "checkout",
    Array.from({ length: n }, (_, i) => ({
      timeNs: NOW - BigInt(t * 1000 + i) * 1_000n,
      body: `order ${t}-${i} placed`,
      traceId: hexId(t, 16),
      spanId: hexId(t * 1000, 8),
    })),
  );
}

/** A gauge of `n` series, one point each, at `t` seconds before now. */
function points(t: number, n: number) {
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "checkout" } }] },
        scopeMetrics: [
          {
            scope: { name: "meter" },
            metrics: [
              {
                name: "queue.depth",
                unit: "{item}",
                gauge: {
                  dataPoints: Array.from({ length: n }, (_, i) => ({
                    timeUnixNano: String(NOW - BigInt(t) * 1_000_000_000n),
                    asInt: String(i + t),
                    attributes: [{ key: "queue", value: { stringValue: `q${i}` } }],
                  })),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

async function health(url: string) {
  return (await http(`${url}/api/health`)).json();
}

async function counts(url: string): Promise<Counts> {
  const { spans, logs, points } = (await health(url)).counts;
  return { spans, logs, points };
}

/** Polls until `check` holds (or fails with what it last saw). */
async function eventually<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  let last: T = await read();
  while (!check(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(last)} after ${ms / 1000} s`);
    await sleep(100);
    last = await read();
  }
  return last;
}

async function post(url: string, signal: "traces" | "logs" | "metrics", body: unknown): Promise<void> {
  const answer = await postJson(`${url}/v1/${signal}`, body);
  expect(answer.status, answer.body.toString()).to.equal(200);
}

/** An upstream obsd on a port of its own, restartable on the same port and store. */
async function startUpstream(port: number, stateDir: string): Promise<CollectorProcess> {
  return startCollectorProcess({
    stateDir,
    argv: [packagePath("bin", "obsd.js"), "--port", String(port), "--db", `${stateDir}/upstream.sqlite`],
  });
}

function startForwarder(stateDir: string, args: string[]): Promise<CollectorProcess> {
  return startCollectorProcess({
    stateDir,
    argv: [packagePath("bin", "obsd.js"), "--port", "0", "--db", `${stateDir}/local.sqlite`, ...args],
  });
}

/** A stand-in OTLP/HTTP upstream whose answers the test decides, keeping what it accepted. */
interface FakeUpstream {
  url: string;
  /** Spans accepted (repeats included), their distinct span ids, and the request headers seen. */
  spans: number;
  spanIds: Set<string>;
  headers: IncomingMessage["headers"][];
  answer: (req: IncomingMessage, body: Buffer) => number | null;
  /** How long each answer waits. */
  delayMs: number;
  close(): Promise<void>;
}

async function fakeUpstream(): Promise<FakeUpstream> {
  const hanging: (() => void)[] = [];
  const fake: FakeUpstream = {
    url: "",
    spans: 0,
    spanIds: new Set(),
    headers: [],
    answer: () => 200,
    delayMs: 0,
    close: async () => {
      for (const end of hanging) end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = gunzipSync(Buffer.concat(chunks));
      fake.headers.push(req.headers);
      const status = fake.answer(req, body);
      if (status === null) {
        hanging.push(() => res.destroy());
        return;
      }
      const retryAfter = status === 503 || status === 429 ? { "retry-after": "1" } : {};
      setTimeout(() => {
        if (status === 200) {
          const decoded = otlpTypes.traceRequest.toObject(otlpTypes.traceRequest.decode(body), { bytes: String }) as {
            resourceSpans?: { scopeSpans?: { spans?: { spanId: string }[] }[] }[];
          };
          for (const rs of decoded.resourceSpans ?? []) {
            for (const ss of rs.scopeSpans ?? []) {
              for (const span of ss.spans ?? []) {
                fake.spans++;
                fake.spanIds.add(span.spanId);
              }
            }
          }
        }
        res.writeHead(status, { "content-type": "application/x-protobuf", ...retryAfter }).end();
      }, fake.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

describe("forwarding (obsd --forward)", function () {
  this.timeout(120_000);
  beforeEach(renewNow);
  const started: { stop(signal?: NodeJS.Signals): Promise<number | null> }[] = [];
  const dirs: { cleanup(): void }[] = [];

  function dir(): string {
    const made = tempDir("obs-forward-");
    dirs.push(made);
    return made.path;
  }

  async function track<T extends { stop(signal?: NodeJS.Signals): Promise<number | null> }>(p: Promise<T>) {
    const value = await p;
    started.push(value);
    return value;
  }

  afterEach(async () => {
    for (const process of started.splice(0)) await process.stop("SIGKILL");
    for (const made of dirs.splice(0)) made.cleanup();
  });

  it("delivers every span, log record and data point to an upstream obsd, which answers each once", async () => {
    const upstream = await track(startUpstream(await freePort(), dir()));
    const local = await track(
      startForwarder(dir(), ["--forward", upstream.url, "--forward-header", `x-api-key=${SECRET}`]),
    );
    for (let t = 1; t <= 5; t++) {
      await post(local.url, "traces", spans(t, 20));
      await post(local.url, "logs", logs(t, 10));
      await post(local.url, "metrics", points(t, 8));
    }
    const want: Counts = { spans: 100, logs: 50, points: 40 };
    expect(await counts(local.url)).to.deep.equal(want);
    await eventually(
      "the upstream's counts",
      () => counts(upstream.url),
      (c) => c.points === want.points && c.spans === want.spans && c.logs === want.logs,
    );
    const trace = (await http(`${upstream.url}/api/traces/${hexId(3, 16)}`)).json();
    expect(trace.data.spanCount).to.equal(20);
    const status = await eventually(
      "the destination's status",
      async () => (await health(local.url)).forwarding[0],
      (s) => s.sent === 190 && s.lagRecords === 0,
    );
    expect(status).to.include({ url: upstream.url, protocol: "http/protobuf", state: "ok", dropped: 0, lagRecords: 0 });
    // The header's value is a secret: shown nowhere.
    const healthText = (await http(`${local.url}/api/health`)).body.toString();
    expect(healthText).to.include("x-api-key=***").and.not.include(SECRET);
    expect(local.output()).to.include(`Forwarding   ${upstream.url}`).and.not.include(SECRET);
  });

  for (const protocol of ["grpc", "http/json"]) {
    it(`delivers with --forward-protocol ${protocol}`, async () => {
      const upstream = await track(startUpstream(await freePort(), dir()));
      const local = await track(startForwarder(dir(), ["--forward", upstream.url, "--forward-protocol", protocol]));
      await post(local.url, "traces", spans(1, 30));
      await post(local.url, "logs", logs(1, 7));
      await post(local.url, "metrics", points(1, 5));
      await eventually(
        "the upstream's counts",
        () => counts(upstream.url),
        (c) => c.spans === 30 && c.logs === 7 && c.points === 5,
      );
      const logsAnswer = (await http(`${upstream.url}/api/traces/${hexId(1, 16)}/logs`)).json();
      expect(logsAnswer.data.map((l: { body: string }) => l.body)).to.include("order 1-3 placed");
    });
  }

  it("keeps what arrives while the upstream is down for 30 s and delivers it, once, when it is back", async () => {
    const port = await freePort();
    const upstreamDir = dir();
    let upstream = await startUpstream(port, upstreamDir);
    const local = await track(startForwarder(dir(), ["--forward", upstream.url]));
    await post(local.url, "traces", spans(1, 10));
    await eventually(
      "the first batch upstream",
      () => counts(upstream.url),
      (c) => c.spans === 10,
    );
    await upstream.stop();
    const downUntil = Date.now() + 30_000;
    let t = 2;
    while (Date.now() < downUntil) {
      await post(local.url, "traces", spans(t, 10));
      await post(local.url, "metrics", points(t, 4));
      t++;
      await sleep(1_000);
    }
    const sentWhileDown = t - 2;
    const down = (await health(local.url)).forwarding[0];
    expect(down.state).to.equal("retrying");
    expect(down.retryingSince).to.be.a("string");
    expect(down.lastError).to.be.a("string");
    expect(down.lagRecords).to.equal(sentWhileDown * 14);
    expect(down.lagSeconds).to.be.greaterThan(20);
    upstream = await track(startUpstream(port, upstreamDir));
    const want = { spans: 10 + sentWhileDown * 10, points: sentWhileDown * 4 };
    await eventually(
      "the upstream's counts",
      () => counts(upstream.url),
      (c) => c.spans === want.spans && c.points === want.points,
      30_000,
    );
    const after = await eventually(
      "the destination's status",
      async () => (await health(local.url)).forwarding[0],
      (s) => s.lagRecords === 0 && s.state === "ok",
    );
    expect(after.retried).to.be.greaterThan(0);
    // Nothing twice in the upstream's answers: every trace holds its ten spans once.
    for (let trace = 1; trace < t; trace++) {
      const answer = await http(`${upstream.url}/api/traces/${hexId(trace, 16)}`);
      expect(answer.status, `trace ${trace}`).to.equal(200);
      expect(answer.json().data.spanCount, `trace ${trace}`).to.equal(10);
      // Its summary is dated by its earliest span, as the traces list windows it.
      expect(answer.json().data.startTime, `trace ${trace}`).to.equal(nsToIso(NOW - 9_000_000n));
    }
  });

  it("delivers everything after the forwarding collector is killed with SIGKILL mid-forward and restarted", async () => {
    const upstream = await fakeUpstream();
    try {
      // Slow answers, so rounds are in flight when the collector is killed.
      upstream.delayMs = 1_000;
      const localDir = dir();
      let local = await startForwarder(localDir, ["--forward", upstream.url]);
      const requests = 40;
      await Promise.all(Array.from({ length: requests }, (_, i) => post(local.url, "traces", spans(i + 1, 50))));
      // Health's view of the forwarder is up to half a second old: wait until it shows the backlog.
      await eventually(
        "a backlog being delivered",
        async () => (await health(local.url)).forwarding[0],
        (f) => f.lagRecords > 0,
      );
      await local.stop("SIGKILL");
      expect(upstream.spanIds.size, "killed before everything was delivered").to.be.below(requests * 50);
      upstream.delayMs = 0;
      local = await track(startForwarder(localDir, ["--forward", upstream.url]));
      await eventually(
        "every span upstream",
        async () => upstream.spanIds.size,
        (n) => n === requests * 50,
        30_000,
      );
      const status = await eventually(
        "the destination's status",
        async () => (await health(local.url)).forwarding[0],
        (s) => s.lagRecords === 0,
      );
      expect(status.dropped).to.equal(0);
    } finally {
      await upstream.close();
    }
  });

  it("drops only the request the upstream refuses with 400, counted and logged, and delivers the rest", async () => {
    const upstream = await fakeUpstream();
    try {
      upstream.answer = (_req, body) => (body.includes("poison") ? 400 : 200);
      const local = await track(
        startForwarder(dir(), ["--forward", upstream.url, "--forward-header", `authorization=Bearer ${SECRET}`]),
      );
      const poisoned = spans(1, 12) as any;
      poisoned.resourceSpans[0].scopeSpans[0].spans[0].name = "poison";
      // Sent together, so they are likely batched together: the refusal must still drop only its own request.
      await Promise.all([
        post(local.url, "traces", poisoned),
        post(local.url, "traces", spans(2, 8)),
        post(local.url, "traces", spans(3, 5)),
      ]);
      const status = await eventually(
        "the destination's status",
        async () => (await health(local.url)).forwarding[0],
        (s) => s.sent === 13 && s.dropped === 12,
      );
      expect(status).to.include({ lastError: "HTTP 400", state: "ok", lagRecords: 0 });
      expect(upstream.spans).to.equal(13);
      expect(upstream.headers.every((h) => h.authorization === `Bearer ${SECRET}`)).to.equal(true);
      expect(upstream.headers.every((h) => h["content-encoding"] === "gzip")).to.equal(true);
      expect(local.output())
        .to.match(/forwarding to .* dropped 12 spans: HTTP 400/)
        .and.not.include(SECRET);
    } finally {
      await upstream.close();
    }
  });

  it("honours 503 with Retry-After and retries until the upstream accepts", async () => {
    const upstream = await fakeUpstream();
    try {
      const seen: number[] = [];
      upstream.answer = () => {
        seen.push(Date.now());
        return seen.length <= 2 ? 503 : 200;
      };
      const local = await track(startForwarder(dir(), ["--forward", upstream.url]));
      await post(local.url, "traces", spans(1, 5));
      const status = await eventually(
        "the destination's status",
        async () => (await health(local.url)).forwarding[0],
        (s) => s.sent === 5,
      );
      expect(status).to.include({ retried: 2, dropped: 0 });
      expect(upstream.spans).to.equal(5);
      // Retry-After: 1 asks for a second; obs's own first backoff is a quarter second at most.
      expect((seen[1] as number) - (seen[0] as number)).to.be.at.least(950);
      expect((seen[2] as number) - (seen[1] as number)).to.be.at.least(950);
    } finally {
      await upstream.close();
    }
  });

  it("keeps acknowledging and answering queries while the upstream never answers", async () => {
    const upstream = await fakeUpstream();
    try {
      upstream.answer = () => null;
      const local = await track(startForwarder(dir(), ["--forward", upstream.url]));
      for (let t = 1; t <= 20; t++) await post(local.url, "traces", spans(t, 25));
      expect((await counts(local.url)).spans).to.equal(500);
      const traces = (await http(`${local.url}/api/traces?limit=5`)).json();
      expect(traces.data).to.have.length(5);
      const status = await eventually(
        "the destination's status",
        async () => (await health(local.url)).forwarding[0],
        (s) => s.lagRecords === 500,
      );
      expect(status.sent).to.equal(0);
    } finally {
      await upstream.close();
    }
  });

  it("shows an upstream's gRPC error message in obs status and monitor status with its control characters escaped", async () => {
    // What a hostile or broken upstream may say: set the terminal's title, clear the screen.
    const hostile = "\u001b]0;TITLE\u0007\u001b[2J";
    const upstream = createH2cServer();
    const sessions: ServerHttp2Session[] = [];
    upstream.on("session", (session) => sessions.push(session));
    upstream.on("stream", (stream) => {
      stream.on("data", () => {});
      stream.on("end", () => {
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () =>
          stream.sendTrailers({ "grpc-status": "14", "grpc-message": encodeURIComponent(`down ${hostile}`) }),
        );
        stream.end();
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", () => resolve()));
    try {
      const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
      const local = await track(startForwarder(dir(), ["--forward", upstreamUrl, "--forward-protocol", "grpc"]));
      await post(local.url, "traces", spans(1, 3));
      const status = await eventually(
        "the destination's status",
        async () => (await health(local.url)).forwarding[0],
        (s) => s.state === "retrying" && typeof s.lastError === "string",
      );
      expect(status.lastError).to.equal(`gRPC status 14: down ${hostile}`);
      const env = { OBS_STATE_DIR: local.stateDir, OBS_MONITOR_URL: "" };
      const port = new URL(local.url).port;
      for (const args of [["status"], ["monitor", "status"]]) {
        const result = await runObs([...args, "--port", port], { env });
        expect(result.code, `${args.join(" ")}: ${result.stderr}`).to.equal(0);
        expect(result.stdout, args.join(" ")).to.include("(gRPC status 14: down \\x1b]0;TITLE\\x07\\x1b[2J)");
        expect(result.stdout, args.join(" ")).not.to.include("\u001b").and.not.include("\u0007");
      }
    } finally {
      // The forwarder keeps its connection open: closing the server alone would wait for it.
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it("trims what waits for a destination by retention while forwarding is off, counting it as dropped", async () => {
    const localDir = dir();
    // An upstream that is not there: everything waits in the outbox.
    const gone = `http://127.0.0.1:${await freePort()}`;
    const flags = ["--retention", "3s", "--retention-interval", "200ms"];
    const local = await startForwarder(localDir, ["--forward", gone, ...flags]);
    // Dated now: a 3 s retention refuses anything older.
    const now = BigInt(Date.now()) * 1_000_000n;
    await post(
      local.url,
      "traces",
      traceRequest(
        "checkout",
        Array.from({ length: 6 }, (_, i) => ({ traceId: hexId(1, 16), spanId: hexId(i + 1, 8), startNs: now })),
      ),
    );
    await post(
      local.url,
      "logs",
      logsRequest(
        "checkout",
        Array.from({ length: 4 }, (_, i) => ({ timeNs: now + BigInt(i), body: `line ${i}` })),
      ),
    );
    await eventually(
      "the backlog",
      async () => (await health(local.url)).forwarding[0],
      (f) => f.lagRecords === 10,
    );
    await local.stop();
    // Started without --forward (as obs setup agentcli starts one): the backlog is kept until
    // retention's age limit, then trimmed like the telemetry, and counted.
    const plain = await track(startForwarder(localDir, flags));
    await eventually(
      "the telemetry trimmed",
      () => counts(plain.url),
      (c) => c.spans === 0 && c.logs === 0,
      15_000,
    );
    // The outbox ages by when each request arrived, a little after the records' own times: the
    // pass that trims the records may come just before its rows are old enough.
    const reader = new Database(`${localDir}/local.sqlite`, { readonly: true });
    try {
      await eventually(
        "the outbox trimmed",
        async () => Number(reader.prepare("SELECT count(*) FROM forward_outbox").pluck().get()),
        (rows) => rows === 0,
        15_000,
      );
    } finally {
      reader.close();
    }
    await plain.stop();
    const db = new Database(`${localDir}/local.sqlite`, { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) FROM forward_outbox").pluck().get()).to.equal(0);
      expect(
        db.prepare("SELECT dropped, sent FROM forward_destinations WHERE destination = ?").get(gone),
      ).to.deep.equal({
        dropped: 10,
        sent: 0,
      });
    } finally {
      db.close();
    }
  });

  it("refuses a --forward that is not an http(s) URL, or a header without a value's name, with exit 2", async () => {
    for (const args of [
      ["--forward", "ftp://example"],
      ["--forward", "http://127.0.0.1:1", "--forward-header", "novalue"],
    ]) {
      const local = startForwarder(dir(), args);
      const error = await local.then(
        async (started) => {
          await started.stop();
          return null;
        },
        (failure: Error) => failure,
      );
      expect(error?.message).to.match(/exited with 2/);
    }
  });
});

describe("forwarding from a background collector (obs monitor start --detach --forward)", function () {
  this.timeout(60_000);
  beforeEach(renewNow);

  it("keeps the header's value off the collector's command line, and obs status and monitor status show the destination", async () => {
    const dir = tempDir("obs-forward-cli-");
    const env = { OBS_STATE_DIR: dir.path };
    const upstream = await fakeUpstream();
    const port = await freePort();
    try {
      const start = await runObs(
        [
          "monitor",
          "start",
          "--detach",
          "--port",
          String(port),
          "--forward",
          upstream.url,
          "--forward-header",
          `x-api-key=${SECRET}`,
          "--json",
        ],
        { env },
      );
      expect(start.code, start.stderr).to.equal(0);
      const pid = JSON.parse(start.stdout).data.collector.pid as number;
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      expect(commandLine).to.include.members(["--forward", upstream.url]);
      expect(commandLine.join(" ")).to.not.include(SECRET);
      const url = `http://127.0.0.1:${port}`;
      await post(url, "traces", spans(1, 9));
      await eventually(
        "the upstream's spans",
        async () => upstream.spans,
        (n) => n === 9,
      );
      // The key reached the upstream: through the collector's environment.
      expect(upstream.headers.map((h) => h["x-api-key"])).to.include(SECRET);
      const status = await eventually(
        "obs status",
        async () => runObs(["status", "--port", String(port)], { env }),
        (r) => r.stdout.includes("sent 9"),
      );
      expect(status.stdout).to.include(
        `forwards  ${upstream.url} (http/protobuf): ok; caught up; sent 9, retried 0, dropped 0`,
      );
      expect(status.stdout).to.not.include(SECRET);
      const monitor = await runObs(["monitor", "status", "--port", String(port), "--json"], { env });
      const document = JSON.parse(monitor.stdout);
      expect(validateEnvelope(document), JSON.stringify(validateEnvelope.errors)).to.equal(true);
      expect(document.data.forwarding[0]).to.include({ url: upstream.url, sent: 9, state: "ok" });
      expect(monitor.stdout).to.not.include(SECRET);
      const human = await runObs(["monitor", "status", "--port", String(port)], { env });
      expect(human.stdout).to.include(`forwards  ${upstream.url} (http/protobuf): ok`);
    } finally {
      await runObs(["monitor", "stop", "--port", String(port)], { env });
      await upstream.close();
      dir.cleanup();
    }
  });
});

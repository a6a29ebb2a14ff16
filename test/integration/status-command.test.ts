import Database from "better-sqlite3";
import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { postJson } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";

const validateDocument = cliDocumentValidator();

describe("obs status: cheap health of the collector (real obsd)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;
  before(async () => {
    obsd = await startCollectorProcess({ env: { OBS_RETENTION: "2d" } });
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest("billing", [
        { traceId: hexId(7, 16), spanId: hexId(1, 8), startNs: BigInt(Date.now()) * 1_000_000n },
      ]),
    );
  });
  after(async () => {
    await obsd.stop();
  });

  it("summarises address, store and counts for people", async () => {
    const result = await runObs(["status", "--base-url", obsd.url]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.match(new RegExp(`^ok {2}obsd \\S+ {2}${obsd.url} {2}\\(given by flag\\)`));
    expect(result.stdout.split("\n")[1]).to.equal(`  web UI    ${obsd.url}/`);
    expect(result.stdout).to.include(obsd.dbPath);
    expect(result.stdout).to.include("1 traces, 1 spans, 0 logs, 0 metric points in 0 series");
    expect(result.stdout).to.include("1 services in the last 15m");
  });

  it("adds the effective configuration and where each value came from with --json", async () => {
    const result = await runObs(["status", "--json"], { env: { OBS_MONITOR_URL: obsd.url } });
    expect(result.code, result.stderr).to.equal(0);
    const document = JSON.parse(result.stdout);
    expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
    expect(document.data.target).to.deep.equal({ base_url: obsd.url, source: "env" });
    expect(document.data.ui).to.equal(`${obsd.url}/`);
    expect(document.data.configuration.retention).to.deep.equal({ value: "2d", source: "env" });
    expect(document.data.configuration.db).to.deep.equal({ value: obsd.dbPath, source: "flag" });
    expect(document.data.configuration.monitor_host).to.deep.equal({ value: "127.0.0.1", source: "default" });
    expect(document.data.counts).to.deep.equal({
      services: 1,
      services_lookback: "15m",
      traces: 1,
      spans: 1,
      logs: 0,
      series: 0,
      points: 0,
    });
  });

  it("is exit 3 with an error document when nothing answers at the URL", async () => {
    const port = await freePort();
    const result = await runObs(["status", "--json", "--port", String(port)]);
    expect(result.code).to.equal(3);
    const document = JSON.parse(result.stdout);
    expect(validateDocument(document)).to.equal(true);
    expect(document.error.code).to.equal("collector_unavailable");
    expect(result.stderr).to.equal("");
  });

  it("says how far back the spans and logs reach and what each takes, measured from the store's pages", async () => {
    const collector = await startCollectorProcess();
    try {
      const nowNs = BigInt(Date.now()) * 1_000_000n;
      const twoHoursAgo = nowNs - 7_200n * 1_000_000_000n;
      const spans = Array.from({ length: 64 }, (_, i) => ({
        traceId: hexId(Math.floor(i / 8) + 1, 16),
        spanId: hexId(i + 1, 8),
        startNs: twoHoursAgo + BigInt(i) * 1_000_000n,
        attributes: { "http.route": `/r/${i % 4}`, "request.id": `req-${i}` },
      }));
      await postJson(`${collector.url}/v1/traces`, traceRequest("billing", spans));
      const logs = Array.from({ length: 20 }, (_, i) => ({
        body: `line ${i}`,
        timeNs: nowNs - BigInt(i) * 1_000_000n,
      }));
      await postJson(`${collector.url}/v1/logs`, logsRequest("billing", logs));
      // The first request starts the measurement; it is in the answers once made.
      let document: { data: { database: { history: Record<string, Record<string, unknown>> } } } | null = null;
      for (let i = 0; i < 50; i++) {
        const result = await runObs(["status", "--json", "--base-url", collector.url]);
        expect(result.code, result.stderr).to.equal(0);
        document = JSON.parse(result.stdout);
        expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
        if (document?.data.database.history.logs?.bytes_per_record !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const history = document?.data.database.history as Record<string, Record<string, unknown>>;
      // Independently: the pages of each signal's tables and indexes over its records.
      const db = new Database(collector.dbPath, { readonly: true });
      const bytesOf = (tables: string[]) =>
        Number(
          db
            .prepare(
              `SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name IN (${tables.map(() => "?").join(", ")}))`,
            )
            .pluck()
            .get(...tables),
        );
      const spanBytes = bytesOf([
        "spans",
        "span_names",
        "span_postings",
        "span_hashed_postings",
        "span_pending_hashes",
        "span_rollups",
        "traces",
        "trace_services",
        "orphan_spans",
      ]);
      const logBytes = bytesOf(["logs", "log_postings", "log_hashed_postings", "log_pending_hashes", "log_rollups"]);
      db.close();
      expect(history.spans).to.deep.include({ bytes_per_record: Math.round(spanBytes / 64) });
      expect(history.logs).to.deep.include({ bytes_per_record: Math.round(logBytes / 20) });
      expect(history.points).to.deep.equal({ oldest: null, reach_seconds: null, bytes_per_record: null });
      expect(history.spans?.reach_seconds).to.be.within(7_190, 7_300);
      expect(history.logs?.reach_seconds).to.be.within(0, 60);
      const text = await runObs(["status", "--base-url", collector.url]);
      expect(text.code, text.stderr).to.equal(0);
      expect(text.stdout).to.match(
        new RegExp(`\\n {2}history {3}spans back 2 h \\(from \\S+\\), ${Math.round(spanBytes / 64)} B per span\\n`),
      );
      expect(text.stdout).to.match(/\n {2}history {3}logs back [\d.]+ (ms|s|min) \(from \S+\), \d+ B per log record\n/);
      expect(text.stdout).to.not.include("metric points back");
    } finally {
      await collector.stop();
    }
  });
});

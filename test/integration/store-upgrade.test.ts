import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { POSTING_BUCKET_ROWS } from "../../daemon/store/postings.js";
import { MIGRATIONS } from "../../daemon/store/schema.js";
import { startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { copyAtVersion, testStore } from "../helpers/store.js";
import { tempDir } from "../helpers/temp-dir.js";

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe("obsd on a store of an older schema (real obsd)", function () {
  this.timeout(30_000);

  it("announces the upgrade, prints a line as each step ends, and keeps every trace", async () => {
    const dir = tempDir("obs-it-upgrade-");
    const source = testStore();
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    try {
      for (let trace = 1; trace <= 12; trace++) {
        source.writeTraces(
          traceRequest(
            "api",
            Array.from({ length: 4 }, (_, i) => ({
              traceId: hexId(trace, 16),
              spanId: hexId(trace * 10 + i, 8),
              startNs: nowNs - BigInt(trace) * 1_000_000_000n + BigInt(i),
            })),
          ),
        );
      }
      const dbPath = join(dir.path, "old.sqlite");
      copyAtVersion(source.db, dbPath, 4).close();
      const obsd = await startCollectorProcess({ dbPath });
      try {
        await waitFor(() => obsd.output().includes(`schema version ${MIGRATIONS.at(-1)?.version} (`));
        const lines = obsd.output().split("\n");
        const notice = lines.findIndex((line) =>
          line.startsWith(
            `obsd: upgrading the database ${dbPath} from schema version 4 to ${MIGRATIONS.at(-1)?.version}`,
          ),
        );
        expect(notice, obsd.output()).to.be.at.least(0);
        const steps = lines
          .map((line) => /^obsd: upgrading the database: schema version (\d+) \(.+\) done in \d+\.\d s$/.exec(line))
          .filter((match) => match !== null)
          .map((match) => Number(match[1]));
        expect(steps).to.deep.equal(MIGRATIONS.filter((m) => m.version > 4).map((m) => m.version));
        // Each as its step ends, while the upgrade runs: all of them before the collector listens.
        const lastStep = lines.map((line) => line.includes("done in")).lastIndexOf(true);
        expect(lastStep).to.be.lessThan(lines.findIndex((line) => line.includes("listening on")));
        const traces = await http(`${obsd.url}/api/traces?lookback=1h&limit=100`);
        expect(traces.status).to.equal(200);
        const body = traces.json<{ data: { spanCount: number }[] }>();
        expect(body.data).to.have.length(12);
        expect(body.data.every((trace) => trace.spanCount === 4)).to.equal(true);
      } finally {
        await obsd.stop();
      }
    } finally {
      source.close();
      dir.cleanup();
    }
  });

  it("hashes, in the background, the full buckets' postings of values that do not repeat, and still finds their spans", async () => {
    const dir = tempDir("obs-it-upgrade-");
    const source = testStore();
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    try {
      // A full posting bucket and a few rows past it, each span with a request id of its own.
      const spans = POSTING_BUCKET_ROWS + 8;
      for (let first = 0; first < spans; first += 2048) {
        source.writeTraces(
          traceRequest(
            "api",
            Array.from({ length: Math.min(2048, spans - first) }, (_, i) => ({
              traceId: hexId(first + i + 1, 16),
              spanId: hexId(first + i + 1, 8),
              startNs: nowNs - 60_000_000_000n + BigInt(first + i),
              attributes: { "request.id": `req-${first + i}`, route: `/r${i % 4}` },
            })),
          ),
        );
      }
      const dbPath = join(dir.path, "v16.sqlite");
      copyAtVersion(source.db, dbPath, 16).close();
      const obsd = await startCollectorProcess({ dbPath });
      try {
        const store = new Database(dbPath, { readonly: true });
        try {
          const hashedBuckets = () =>
            store.prepare("SELECT DISTINCT bucket FROM span_hashed_postings").pluck().safeIntegers(false).all();
          await waitFor(() => hashedBuckets().length > 0);
          expect(hashedBuckets()).to.deep.equal([0]);
        } finally {
          store.close();
        }
        for (const [id, found] of [
          ["req-17", 1],
          [`req-${POSTING_BUCKET_ROWS + 2}`, 1],
          ["req-none", 0],
        ] as const) {
          const answer = await http(`${obsd.url}/api/spans/search?lookback=1h&attr.request.id=${id}`);
          expect(answer.json<{ data: unknown[] }>().data, id).to.have.length(found);
        }
        const routes = await http(`${obsd.url}/api/spans/search?lookback=1h&limit=500&attr.route=/r1`);
        expect(routes.json<{ data: unknown[] }>().data).to.have.length(500);
        // New spans: obsd's writer now writes their request ids hashed, pending until their bucket is full.
        const late = traceRequest(
          "api",
          [1, 2, 3].map((i) => ({
            traceId: hexId(900_000 + i, 16),
            spanId: hexId(900_000 + i, 8),
            startNs: nowNs - 1_000_000_000n + BigInt(i),
            attributes: { "request.id": `late-${i}` },
          })),
        );
        expect((await postJson(`${obsd.url}/v1/traces`, late)).status).to.equal(200);
        const pending = new Database(dbPath, { readonly: true });
        try {
          expect(pending.prepare("SELECT count(*) FROM span_pending_hashes").pluck().get()).to.equal(1);
        } finally {
          pending.close();
        }
        const found = await http(`${obsd.url}/api/spans/search?lookback=1h&attr.request.id=late-2`);
        expect(found.json<{ data: { spanId: string }[] }>().data.map((span) => span.spanId)).to.deep.equal([
          hexId(900_002, 8),
        ]);
      } finally {
        await obsd.stop();
      }
    } finally {
      source.close();
      dir.cleanup();
    }
  });
});

import { join } from "node:path";
import { expect } from "chai";
import { MIGRATIONS } from "../../daemon/store/schema.js";
import { startCollectorProcess } from "../helpers/collector-process.js";
import { http } from "../helpers/http.js";
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
});

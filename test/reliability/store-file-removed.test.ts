import { copyFileSync, renameSync, rmSync } from "node:fs";
import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";

const NOW = BigInt(Date.now()) * 1_000_000n;

function span(n: number) {
  return traceRequest("removed-store", [{ traceId: hexId(n, 16), spanId: hexId(n, 8), startNs: NOW }]);
}

async function health(url: string) {
  return (await http(`${url}/api/health`)).json();
}

describe("the database file removed or replaced while obsd runs", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess | null = null;

  afterEach(async () => {
    await obsd?.stop("SIGKILL");
    obsd = null;
  });

  it("refuses writes with 503 once the database is deleted, says so in health and the log, and exits non-zero", async () => {
    obsd = await startCollectorProcess();
    expect((await postJson(`${obsd.url}/v1/traces`, span(1))).status).to.equal(200);
    rmSync(obsd.dbPath);

    const res = await postJson(`${obsd.url}/v1/traces`, span(2));
    expect(res.status).to.equal(503);
    expect(res.json().error).to.match(/database file .* was deleted/);
    // Still refused afterwards: nothing more is taken that cannot be kept.
    expect((await postJson(`${obsd.url}/v1/traces`, span(3))).status).to.equal(503);

    const writes = (await health(obsd.url)).database.writes;
    expect(writes.ok).to.equal(false);
    expect(writes.lastError).to.match(/was deleted/);
    expect(obsd.output()).to.match(/obsd: writes are failing: .*was deleted/);

    const code = await obsd.stop();
    obsd = null;
    expect(code).to.not.equal(0);
  });

  it("refuses writes with 503 once the database is replaced by another file", async () => {
    obsd = await startCollectorProcess();
    expect((await postJson(`${obsd.url}/v1/traces`, span(1))).status).to.equal(200);
    copyFileSync(obsd.dbPath, `${obsd.dbPath}.copy`);
    renameSync(`${obsd.dbPath}.copy`, obsd.dbPath);

    const res = await postJson(`${obsd.url}/v1/traces`, span(2));
    expect(res.status).to.equal(503);
    expect(res.json().error).to.match(/replaced/);
    const code = await obsd.stop();
    obsd = null;
    expect(code).to.not.equal(0);
  });

  it("reports a deleted database in health without waiting for a write", async () => {
    obsd = await startCollectorProcess();
    rmSync(obsd.dbPath);
    let writes = (await health(obsd.url)).database.writes;
    for (let i = 0; i < 50 && writes.ok; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      writes = (await health(obsd.url)).database.writes;
    }
    expect(writes.ok).to.equal(false);
    expect(writes.lastError).to.match(/was deleted/);
  });
});

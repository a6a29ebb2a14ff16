import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { expect } from "chai";
import { type ReportServer, serveReport } from "../../../../client/checks/report/report-server.js";
import { tempDir } from "../../../helpers/temp-dir.js";

/** GET `path` from `origin` with the Host header a browser would send for `host`. */
function get(origin: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("obs show-report's server and DNS rebinding", () => {
  let dir: ReturnType<typeof tempDir>;
  let server: ReportServer;
  let port: string;
  beforeEach(async () => {
    dir = tempDir();
    mkdirSync(join(dir.path, "report"));
    writeFileSync(join(dir.path, "report", "index.html"), "<p>report</p>");
    writeFileSync(join(dir.path, "action-cache.json"), '{"entries":[]}');
    server = await serveReport(dir.path);
    port = new URL(server.origin).port;
  });
  afterEach(async () => {
    await server.close();
    dir.cleanup();
  });

  it("answers a browser that asks for 127.0.0.1:PORT or localhost:PORT", async () => {
    expect(await get(server.origin, "/report/index.html", `127.0.0.1:${port}`)).to.deep.equal({
      status: 200,
      body: "<p>report</p>",
    });
    expect((await get(server.origin, "/action-cache.json", `localhost:${port}`)).status).to.equal(200);
    expect((await get(server.origin, "/action-cache.json", `LocalHost:${port}`)).status).to.equal(200);
  });

  it("refuses any other Host: a page of another site rebound to 127.0.0.1 reads nothing", async () => {
    for (const host of [
      `evil.example:${port}`,
      "evil.example",
      `127.0.0.1:${Number(port) + 1}`,
      "localhost",
      `[::1]:${port}x`,
    ]) {
      const answer = await get(server.origin, "/action-cache.json", host);
      expect(answer.status, host).to.equal(421);
      expect(answer.body, host).not.to.include("entries");
    }
  });
});

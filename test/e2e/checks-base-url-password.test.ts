import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { CLEAN_ENV } from "../helpers/mock-checks.js";
import { modelImitation } from "../helpers/model-imitations.js";
import { runObs } from "../helpers/obs-cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const SITE = packagePath("test", "fixtures", "checks", "site");
const PASSWORD = "BasicPw9876";

/** The fixture site behind HTTP basic authentication (ada / PASSWORD). */
async function basicAuthSite(): Promise<{ port: number; close(): Promise<void> }> {
  const expected = `Basic ${Buffer.from(`ada:${PASSWORD}`).toString("base64")}`;
  const server: Server = createServer(async (request, response) => {
    if (request.headers.authorization !== expected) {
      response.writeHead(401, { "www-authenticate": 'Basic realm="fixture"' }).end("sign in");
      return;
    }
    const path = new URL(request.url ?? "/", "http://x").pathname.replace(/[^a-z.-]/g, "");
    try {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(await readFile(join(SITE, path)));
    } catch {
      response.writeHead(404).end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** Every request body to a listening server, each answered by `reply(body, count so far)`. */
async function recordingServer(
  reply: (body: string, index: number) => object,
): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      bodies.push(body);
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply(body, bodies.length)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => closeServer(server),
  };
}

const SPEC = `import { test } from "obs/test";

test("opens the todos", async ({ agent }) => {
  await agent.goto("/todo.html");
  await agent.act("open the todo page again");
  throw new Error("stop here, so that failure evidence is written too");
});
`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((entry) => join(dir, entry))
    .filter((path) => statSync(path).isFile());
}

describe("browser checks: a password in the base URL reaches only the browser (real Chromium)", function () {
  this.timeout(120_000);

  it("keeps it out of the model's requests, the reports, the progress file, the console and telemetry", async () => {
    const site = await basicAuthSite();
    const model = await modelImitation("openai", [
      { name: "navigate", arguments: { url: "/todo.html" } },
      { name: "done", arguments: { evidence: "opened" } },
    ]);
    const modelBodies = () => model.requests.map((request) => JSON.stringify(request));
    const collector = await recordingServer(() => ({}));
    const project = tempDir("obs-base-url-");
    try {
      writeFileSync(join(project.path, "todo.obs.ts"), SPEC);
      const result = await runObs(
        [
          "test",
          "todo.obs.ts",
          "--base-url",
          `http://ada:${PASSWORD}@127.0.0.1:${site.port}`,
          "--provider",
          "openai",
          "--model",
          "fake",
          "--verbose",
          "--progress-file",
          "progress.ndjson",
          "--otel-endpoint",
          collector.url,
        ],
        {
          cwd: project.path,
          env: { ...CLEAN_ENV, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: model.url },
          timeoutMs: 100_000,
        },
      );
      const output = result.stdout + result.stderr;
      expect(result.code, output).to.equal(1);
      const report = JSON.parse(readFileSync(join(project.path, ".obs", "report.json"), "utf8"));
      const [test] = report.files[0].tests;
      // The browser was let in: the model's navigate opened the page behind the password.
      expect(test.steps.map((step: { ok: boolean }) => step.ok)).to.deep.equal([true, true, true]);
      expect(test.failure.message).to.include("stop here");
      expect(report.base_url).to.equal(`http://ada:***@127.0.0.1:${site.port}`);
      expect(modelBodies().join("\n")).to.include("Todos");
      expect(collector.bodies.length).to.be.greaterThan(0);

      const leaks = [
        ...filesUnder(project.path).filter((path) => readFileSync(path).includes(PASSWORD)),
        ...(output.includes(PASSWORD) ? ["console"] : []),
        ...(modelBodies().some((body) => body.includes(PASSWORD)) ? ["model"] : []),
        ...(collector.bodies.some((body) => body.includes(PASSWORD)) ? ["telemetry"] : []),
      ];
      expect(leaks).to.deep.equal([]);
    } finally {
      project.cleanup();
      await Promise.all([site.close(), model.close(), collector.close()]);
    }
  });
});

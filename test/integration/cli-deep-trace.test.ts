import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";

const DEPTH = 20_000;
/** The same chain, as the API sends it now (a flat list with depths) and as it once nested it. */
const SHAPES = { flat: "ab".repeat(16), nested: "cd".repeat(16) } as const;

/** The span id of the chain's span at `depth`. */
const spanIdAt = (depth: number) => (depth + 1).toString(16).padStart(16, "0");

/**
 * `GET /api/traces/:id` for one trace whose spans form a chain DEPTH levels deep, written by
 * hand: the answer as the API shapes it, without relying on a serializer that could recurse.
 */
function deepTraceAnswer(shape: keyof typeof SHAPES): string {
  const start = Date.parse("2026-01-02T03:04:05Z");
  const iso = (ms: number) => `${new Date(start + ms).toISOString().slice(0, -1)}000000Z`;
  const nodes: string[] = [];
  for (let depth = 0; depth < DEPTH; depth += 1) {
    nodes.push(
      `{"spanId":"${spanIdAt(depth)}","parentSpanId":${depth === 0 ? "null" : `"${spanIdAt(depth - 1)}"`},"serviceName":"loop","operation":"recurse","kind":"internal","startTime":"${iso(depth)}","durationMs":${DEPTH - depth},"status":"ok","depth":${depth},"missingParent":false${shape === "nested" ? ',"children":[' : "}"}`,
    );
  }
  const tree = shape === "nested" ? `[${nodes.join("")}${"]}".repeat(DEPTH)}]` : `[${nodes.join(",")}]`;
  const summary = `"traceId":"${SHAPES[shape]}","rootServiceName":"loop","rootOperation":"recurse","rootSpanId":"${spanIdAt(0)}","startTime":"${iso(0)}","endTime":"${iso(DEPTH)}","durationMs":${DEPTH},"spanCount":${DEPTH},"errorCount":0,"status":"ok","services":["loop"]`;
  return `{"data":{${summary},"tree":${tree}}}`;
}

/** `obs` with room for a few megabytes of output (runObs stops at execFile's 1 MiB). */
function runObs(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [packagePath("bin", "obs.js"), ...args],
      { maxBuffer: 256 * 1024 * 1024, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe("obs trace of a 20,000-deep parent chain", function () {
  this.timeout(60_000);
  let server: Server;
  let baseUrl: string;

  before(async () => {
    const answers = new Map(
      Object.entries(SHAPES).map(([shape, id]) => [id, deepTraceAnswer(shape as keyof typeof SHAPES)]),
    );
    server = createServer((req, res) => {
      const id = /^\/api\/traces\/([0-9a-f]{32})(\?|$)/.exec(req.url ?? "")?.[1];
      const answer = id === undefined ? undefined : answers.get(id);
      if (answer) res.writeHead(200, { "content-type": "application/json" }).end(answer);
      else res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const [shape, traceId] of Object.entries(SHAPES)) {
    it(`prints every span of the chain as a waterfall line (tree ${shape})`, async () => {
      const result = await runObs(["trace", traceId, "--base-url", baseUrl]);
      expect(result.code, result.stderr).to.equal(0);
      const lines = result.stdout.trimEnd().split("\n");
      expect(lines).to.have.length(DEPTH + 3);
      expect(lines[3]).to.match(/\| {4}recurse {2}\[loop\] {2}0000000000000002$/);
      expect(lines[lines.length - 2]).to.include(`(depth ${DEPTH - 1}) recurse  [loop]  ${spanIdAt(DEPTH - 1)}`);
      expect(lines[lines.length - 1]).to.equal(`web UI: ${baseUrl}/ui/traces/${traceId}`);
    });
  }

  it("writes the nested chain as one --json document", async () => {
    const result = await runObs(["trace", SHAPES.nested, "--base-url", baseUrl, "--json"]);
    expect(result.code, result.stderr).to.equal(0);
    let node = JSON.parse(result.stdout).data.tree[0];
    let depth = 0;
    while (node.children.length > 0) {
      expect(node).to.have.property("span_id", spanIdAt(depth));
      node = node.children[0];
      depth += 1;
    }
    expect(depth).to.equal(DEPTH - 1);
  });
});

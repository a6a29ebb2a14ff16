import type { Server } from "node:http";
import { expect } from "chai";
import express, { type ErrorRequestHandler } from "express";
import { queryRoutes } from "../../../daemon/http/query-routes.js";
import { type QueryCaller, QueryFailure } from "../../../daemon/query/query-client.js";
import { QueryError } from "../../../shared/query-error.js";
import type { QueryMethod } from "../../../shared/query-types.js";
import { http } from "../../helpers/http.js";

const TRACE = "ab".repeat(16);

/** Answers each call as the test says, and records what it was asked. */
class FakeCaller implements QueryCaller {
  readonly calls: { method: QueryMethod; args: unknown; nowNs: bigint }[] = [];
  outcome: () => Promise<string> = () => Promise.resolve('{"data":[]}');

  call(method: QueryMethod, args: unknown, nowNs: bigint): Promise<string> {
    this.calls.push({ method, args, nowNs });
    return this.outcome();
  }
}

describe("HTTP query routes (over a fake query caller)", () => {
  const caller = new FakeCaller();
  const passedOn: unknown[] = [];
  let server: Server;
  let base: string;

  before(async () => {
    const app = express();
    app.use(queryRoutes(caller));
    app.use((_req, res) => {
      res.status(404).send("not a query route");
    });
    const handler: ErrorRequestHandler = (error, _req, res, _next) => {
      passedOn.push(error);
      for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, String(value));
      res.status(typeof error.status === "number" ? error.status : 500).json({ error: error.message });
    };
    app.use(handler);
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  after(() => {
    server.close();
  });
  beforeEach(() => {
    caller.calls.length = 0;
    passedOn.length = 0;
    caller.outcome = () => Promise.resolve('{"data":[]}');
  });

  it("calls the route's method with the typed request and sends the JSON text as it is", async () => {
    caller.outcome = () => Promise.resolve('{"data":{"x":1}}');
    const res = await http(`${base}/api/traces/${TRACE.toUpperCase()}?include=spans&limit=5`);
    expect(res.status).to.equal(200);
    expect(res.headers["content-type"]).to.equal("application/json; charset=utf-8");
    expect(res.body.toString()).to.equal('{"data":{"x":1}}');
    expect(caller.calls).to.have.length(1);
    expect(caller.calls[0]).to.deep.include({
      method: "getTrace",
      args: { traceId: TRACE, include: ["spans"], limit: 5 },
    });
    expect(caller.calls[0]?.nowNs).to.be.a("bigint");
  });

  it("refuses a bad request with 400 without calling the query thread", async () => {
    const res = await http(`${base}/api/logs?limit=0`);
    expect(res.status).to.equal(400);
    expect(res.json()).to.deep.equal({ error: 'invalid limit "0": expected a positive integer' });
    expect(caller.calls).to.deep.equal([]);
  });

  it("renders the service's errors: invalid_argument as 400, not_found as 404", async () => {
    caller.outcome = () => Promise.reject(new QueryError(`no trace ${TRACE} in the store`, "not_found"));
    const missing = await http(`${base}/api/traces/${TRACE}`);
    expect(missing.status).to.equal(404);
    expect(missing.body.toString()).to.equal(`{"error":"no trace ${TRACE} in the store"}`);
    caller.outcome = () => Promise.reject(new QueryError("field=attribute_values needs key=ATTRIBUTE"));
    const bad = await http(`${base}/api/facets?type=traces&field=attribute_values`);
    expect(bad.status).to.equal(400);
    expect(bad.json()).to.deep.equal({ error: "field=attribute_values needs key=ATTRIBUTE" });
    expect(passedOn).to.deep.equal([]);
  });

  it("hands a store failure to the app's error handler", async () => {
    caller.outcome = () => Promise.reject(new QueryFailure("disk I/O error"));
    const res = await http(`${base}/api/services`);
    expect(res.status).to.equal(500);
    expect(passedOn).to.have.length(1);
    expect(passedOn[0]).to.be.instanceOf(QueryFailure);
  });

  it("answers 405 to other methods, and leaves other paths to the next router", async () => {
    const post = await http(`${base}/api/traces`, { method: "POST" });
    expect(post.status).to.equal(405);
    expect(post.headers.allow).to.equal("GET, HEAD");
    expect(post.json()).to.deep.equal({ error: "use GET for /api/traces" });
    const other = await http(`${base}/api/health`);
    expect(other.status).to.equal(404);
    expect(other.body.toString()).to.equal("not a query route");
    expect(caller.calls).to.deep.equal([]);
  });
});

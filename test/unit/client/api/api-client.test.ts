import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { requestJson } from "../../../../client/api/api-client.js";
import { LifecycleError } from "../../../../client/lifecycle/lifecycle-error.js";

describe("the collector's API client", () => {
  let server: Server;
  let baseUrl: string;
  before(async () => {
    // Node's own HTTP server, as obsd's: it answers a request whose header passes its limit
    // with a bare 431 before any handler runs.
    server = createServer((_request, response) => response.end('{"data":[]}'));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it("answers a request too long for the collector to read as an argument error, not as no collector", async () => {
    const error = await requestJson(baseUrl, "/api/logs", [["contains", "é".repeat(8000)]]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(LifecycleError);
    expect([(error as LifecycleError).code, (error as Error).message]).to.deep.equal([
      "invalid_argument",
      "the request is too long for the collector to read (HTTP 431): shorten the filters' text",
    ]);
    expect(await requestJson(baseUrl, "/api/logs", [["contains", "é"]])).to.deep.equal({ data: [] });
  });
});

import { createServer, type IncomingHttpHeaders, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { HttpError, sendErrorJson } from "../../../daemon/http/http-error.js";

interface Answer {
  /** 0 when the connection closed before a whole answer. */
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a client gets when a handler answers with `answer` on a real server. */
async function answered(answer: (res: ServerResponse) => void): Promise<Answer> {
  const server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<Answer>((resolve) => {
      const cut = () => resolve({ status: 0, headers: {}, body: "" });
      const req = request(`http://127.0.0.1:${port}/`, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", cut);
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
      });
      req.on("error", cut);
      req.end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("errors as HTTP answers (sendErrorJson)", () => {
  let logged: string[];
  const consoleError = console.error;
  beforeEach(() => {
    logged = [];
    console.error = (line: string) => logged.push(line);
  });
  afterEach(() => {
    console.error = consoleError;
  });

  it("answers an HttpError with its status, its headers and {error: message}", async () => {
    const res = await answered((r) =>
      sendErrorJson(r, new HttpError(503, "store unavailable", { "Retry-After": "1" })),
    );
    expect(res.status).to.equal(503);
    expect(res.headers["retry-after"]).to.equal("1");
    expect(res.headers["content-type"]).to.equal("application/json; charset=utf-8");
    expect(JSON.parse(res.body)).to.deep.equal({ error: "store unavailable" });
    expect(logged).to.deep.equal([]);
  });

  it("keeps an unexpected error's detail in the log and tells the client only that it was internal", async () => {
    const res = await answered((r) => sendErrorJson(r, new Error("secret path /home/x/db")));
    expect(res.status).to.equal(500);
    expect(JSON.parse(res.body)).to.deep.equal({ error: "internal error" });
    expect(logged.join("\n")).to.match(/secret path/);
  });

  it("answers an error that says its own 4xx status with its message", async () => {
    const error = Object.assign(new Error("request entity too large"), { status: 413 });
    const res = await answered((r) => sendErrorJson(r, error));
    expect([res.status, JSON.parse(res.body)]).to.deep.equal([413, { error: "request entity too large" }]);
  });

  it("closes the connection of a response already under way instead of throwing", async () => {
    const res = await answered((r) => {
      r.writeHead(200, { "Content-Length": "100" });
      r.write("partial");
      sendErrorJson(r, new Error("failed midway"));
    });
    expect(res.status).to.equal(0);
    expect(logged.join("\n")).to.match(/failed midway/);
  });
});

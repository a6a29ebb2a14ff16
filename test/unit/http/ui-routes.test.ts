import { mkdirSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import express, { type ErrorRequestHandler } from "express";
import { HttpError } from "../../../daemon/http/http-error.js";
import { uiRoutes } from "../../../daemon/http/ui-routes.js";
import { http } from "../../helpers/http.js";
import { tempDir } from "../../helpers/temp-dir.js";

/** The UI's router alone on a free port, over `webRoot`, with errors answered as obsd answers them. */
async function serve(webRoot: string): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(uiRoutes(webRoot));
  const answerError: ErrorRequestHandler = (error, _req, res, _next) => {
    const status = error instanceof HttpError ? error.status : 500;
    res.status(status).json({ error: (error as Error).message });
  };
  app.use(answerError);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("the web UI's routes over a web root", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir("obs-web-");
  });
  afterEach(() => dir.cleanup());

  it("answers 503 naming the missing page when the UI was never built, and still 404 for an asset", async () => {
    const server = await serve(dir.path);
    try {
      for (const path of ["/", "/ui/traces"]) {
        const response = await http(`${server.url}${path}`);
        expect(response.status, path).to.equal(503);
        expect(response.json().error, path).to.equal(
          `the web UI is not built in this installation (${join(dir.path, "index.html")} is missing): run npm run build; the query API at /api still answers`,
        );
      }
      expect((await http(`${server.url}/ui/assets/app.js`)).status).to.equal(404);
    } finally {
      await server.close();
    }
  });

  it("serves the page and the assets of the folder it is given", async () => {
    mkdirSync(join(dir.path, "assets"));
    writeFileSync(join(dir.path, "index.html"), "<!doctype html><title>t</title>");
    writeFileSync(join(dir.path, "assets", "app.js"), "export {};");
    const server = await serve(dir.path);
    try {
      expect((await http(`${server.url}/ui/logs?q=x`)).body.toString()).to.equal("<!doctype html><title>t</title>");
      expect((await http(`${server.url}/ui/assets/app.js`)).body.toString()).to.equal("export {};");
    } finally {
      await server.close();
    }
  });
});

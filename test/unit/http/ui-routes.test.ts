import { mkdirSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { expect } from "chai";
import express, { type ErrorRequestHandler } from "express";
import { HttpError } from "../../../daemon/http/http-error.js";
import { UI_CONTENT_SECURITY_POLICY, uiRoutes } from "../../../daemon/http/ui-routes.js";
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

  it("answers 503 naming the missing file when the UI was never built, and still 404 for an unknown asset", async () => {
    const server = await serve(dir.path);
    try {
      for (const [path, file] of [
        ["/", "index.html"],
        ["/ui/traces", "index.html"],
        ["/ui/assets/app.js", join("assets", "app.js")],
        ["/ui/assets/app.css", join("assets", "app.css")],
      ] as const) {
        const response = await http(`${server.url}${path}`);
        expect(response.status, path).to.equal(503);
        expect(response.json().error, path).to.equal(
          `the web UI is not built in this installation (${join(dir.path, file)} is missing): run npm run build; the query API at /api still answers`,
        );
      }
      for (const path of ["/ui/assets/other.js", "/ui/assets/app.js.map", "/ui/assets"]) {
        expect((await http(`${server.url}${path}`)).status, path).to.equal(404);
      }
    } finally {
      await server.close();
    }
  });

  it("answers 503 for a bundle file a partial build left out, rather than a blank page", async () => {
    mkdirSync(join(dir.path, "assets"));
    writeFileSync(join(dir.path, "index.html"), "<!doctype html><title>t</title>");
    writeFileSync(join(dir.path, "assets", "app.js"), "export {};");
    const server = await serve(dir.path);
    try {
      expect((await http(`${server.url}/ui/assets/app.js`)).status).to.equal(200);
      const style = await http(`${server.url}/ui/assets/app.css`);
      expect(style.status).to.equal(503);
      expect(style.json().error).to.include(`(${join(dir.path, "assets", "app.css")} is missing)`);
      expect((await http(`${server.url}/ui/assets/app.css`, { method: "HEAD" })).status).to.equal(503);
    } finally {
      await server.close();
    }
  });

  it("puts the CSP and its companions on its error answers too", async () => {
    const server = await serve(dir.path);
    try {
      for (const [method, path, status] of [
        ["GET", "/", 503],
        ["GET", "/ui/assets/app.js", 503],
        ["GET", "/ui/assets/other.js", 404],
        ["POST", "/ui/logs", 405],
      ] as const) {
        const response = await http(`${server.url}${path}`, { method });
        const what = `${method} ${path}`;
        expect(response.status, what).to.equal(status);
        expect(response.headers["content-security-policy"], what).to.equal(UI_CONTENT_SECURITY_POLICY);
        expect(response.headers["x-content-type-options"], what).to.equal("nosniff");
        expect(response.headers["x-frame-options"], what).to.equal("DENY");
        expect(response.headers["referrer-policy"], what).to.equal("no-referrer");
      }
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

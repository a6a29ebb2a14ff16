import { readFileSync } from "node:fs";
import { expect } from "chai";
import { UI_CONTENT_SECURITY_POLICY } from "../../daemon/http/ui-routes.js";
import { packagePath } from "../../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { type HttpResult, http } from "../helpers/http.js";

/** The headers every UI answer carries: the page may load only its own files, and nothing may frame it. */
function expectSecured(response: HttpResult, what: string): void {
  expect(response.headers["content-security-policy"], what).to.equal(UI_CONTENT_SECURITY_POLICY);
  expect(response.headers["x-content-type-options"], what).to.equal("nosniff");
  expect(response.headers["referrer-policy"], what).to.equal("no-referrer");
  expect(response.headers["x-frame-options"], what).to.equal("DENY");
}

/**
 * The absolute URLs the built page may contain: the XML namespaces Preact creates SVG and
 * MathML elements in (strings compared with, never loaded). Anything else would be a request
 * to somewhere other than this collector, or a leftover worth a look.
 */
const ALLOWED_URLS = [
  "http://www.w3.org/1998/Math/MathML",
  "http://www.w3.org/1999/xhtml",
  "http://www.w3.org/2000/svg",
];

/** esbuild keeps license comments (`/*! ... *\/`, `@license`, `@preserve`); their links are text. */
function withoutLicenseComments(text: string): string {
  return text.replace(/\/\*(?:!|\*?\s*@(?:license|preserve))[\s\S]*?\*\//g, "");
}

/** Every absolute or protocol-relative reference a built file could load from elsewhere. */
function foreignReferences(name: string, text: string): string[] {
  const code = withoutLicenseComments(text);
  const absolute = [...code.matchAll(/https?:\/\/[^\s"'`()<>]*/g)].map(([url]) => url);
  const protocolRelative = [
    // src="//cdn..." or href='//...' in markup
    ...code.matchAll(/\b(?:src|href|action)\s*=\s*["']?\s*\/\/[^\s"'>]*/gi),
    // url(//...) and @import "//..." in stylesheets
    ...code.matchAll(/url\(\s*["']?\s*\/\/[^)]*\)/gi),
    ...code.matchAll(/@import\s+(?:url\()?\s*["']?\s*\/\/[^;]*/gi),
    // fetch("//..."), import("//..."), new URL("//...") and the like in scripts
    ...code.matchAll(/\(\s*["'`]\/\/[^"'`]*["'`]/g),
  ].map(([match]) => match);
  const fonts = [...code.matchAll(/@font-face|\.woff2?\b|\.ttf\b|\.otf\b/gi)].map(([match]) => match);
  return [...absolute.filter((url) => !ALLOWED_URLS.includes(url)), ...protocolRelative, ...fonts].map(
    (found) => `${name}: ${found}`,
  );
}

describe("obsd serves the web UI (real obsd)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;
  before(async () => {
    obsd = await startCollectorProcess();
  });
  after(async () => {
    await obsd.stop();
  });

  it("answers the page at / and at every view path, deep links included, with the CSP and its companions", async () => {
    const index = readFileSync(packagePath("dist", "web", "index.html"));
    for (const path of [
      "/",
      "/ui",
      "/ui/",
      "/ui/traces/0af7651916cd43dd8448eb211c80319c?span=b7ad6b7169203331",
      "/ui/logs",
    ]) {
      const response = await http(`${obsd.url}${path}`);
      expect(response.status, path).to.equal(200);
      expect(response.headers["content-type"], path).to.equal("text/html; charset=utf-8");
      expect(response.body.equals(index), path).to.equal(true);
      expectSecured(response, path);
    }
  });

  it("answers the script and the stylesheet with their types and the same headers", async () => {
    const script = await http(`${obsd.url}/ui/assets/app.js`);
    expect(script.status).to.equal(200);
    expect(script.headers["content-type"]).to.match(/^(?:text|application)\/javascript; charset=utf-8$/i);
    expect(script.body.equals(readFileSync(packagePath("dist", "web", "assets", "app.js")))).to.equal(true);
    expectSecured(script, "app.js");
    expect(script.headers["cache-control"]).to.equal("no-cache");
    const style = await http(`${obsd.url}/ui/assets/app.css`);
    expect(style.status).to.equal(200);
    expect(style.headers["content-type"]).to.equal("text/css; charset=utf-8");
    expectSecured(style, "app.css");
  });

  it("answers a missing asset, and the assets folder itself, 404 in JSON rather than the page", async () => {
    for (const path of ["/ui/assets/missing.js", "/ui/assets/", "/ui/assets"]) {
      const response = await http(`${obsd.url}${path}`);
      expect(response.status, path).to.equal(404);
      expect(response.headers["content-type"], path).to.match(/^application\/json/);
      expect(response.json().error, path).to.be.a("string");
      expectSecured(response, path);
    }
  });

  it("refuses other methods with 405 and Allow", async () => {
    for (const [method, path] of [
      ["POST", "/"],
      ["PUT", "/ui/traces"],
      ["DELETE", "/ui/assets/app.js"],
    ] as const) {
      const response = await http(`${obsd.url}${path}`, { method });
      expect(response.status, `${method} ${path}`).to.equal(405);
      expect(response.headers.allow, `${method} ${path}`).to.equal("GET, HEAD");
      expect(response.json().error).to.equal(`use GET for ${path}`);
      expectSecured(response, `${method} ${path}`);
    }
  });

  it("refuses a foreign Host with 403, as the API does, with the UI's headers on a UI path", async () => {
    for (const path of ["/", "/ui/traces", "/ui/assets/app.js", "/api/health"]) {
      const response = await http(`${obsd.url}${path}`, { headers: { host: "attacker.example" } });
      expect(response.status, path).to.equal(403);
      expect(response.json().error, path).to.include('Host "attacker.example" is not allowed');
      expect(response.body.toString(), path).to.not.include("<html");
      if (path.startsWith("/api")) expect(response.headers["content-security-policy"], path).to.equal(undefined);
      else expectSecured(response, path);
    }
  });

  it("leaves the API, OTLP, MCP and docs routes as they were", async () => {
    const health = await http(`${obsd.url}/api/health`);
    expect(health.status).to.equal(200);
    expect(health.json().status).to.equal("ok");
    const unknown = await http(`${obsd.url}/api/nope`);
    expect(unknown.status).to.equal(404);
    expect(unknown.json().error).to.equal("no route GET /api/nope; see /docs");
    const ingest = await http(`${obsd.url}/v1/traces`);
    expect(ingest.status).to.equal(405);
    expect(ingest.json().error).to.equal("use POST for /v1/traces");
    const mcp = await http(`${obsd.url}/mcp`);
    expect(mcp.status).to.equal(405);
    expect(mcp.headers.allow).to.equal("POST");
    const docs = await http(`${obsd.url}/docs`);
    expect(docs.status).to.equal(200);
    expect(docs.body.toString()).to.include("/api/traces");
    const openApi = await http(`${obsd.url}/openapi.json`);
    expect(openApi.json().openapi).to.match(/^3\./);
    const elsewhere = await http(`${obsd.url}/favicon.ico`);
    expect(elsewhere.status).to.equal(404);
    expect(elsewhere.json().error).to.equal("no route GET /favicon.ico; see /docs");
  });
});

describe("the built page loads nothing from elsewhere", () => {
  it("has no absolute or protocol-relative URL in its html, js or css but the XML namespaces, and no fonts", () => {
    const found = ["index.html", "assets/app.js", "assets/app.css"].flatMap((name) =>
      foreignReferences(name, readFileSync(packagePath("dist", "web", name), "utf8")),
    );
    expect(found).to.deep.equal([]);
  });

  it("would see a CDN script, a protocol-relative stylesheet, a remote font and a fetch elsewhere", () => {
    expect(
      foreignReferences(
        "x",
        [
          '<script src="https://cdn.example/x.js"></script><link href=//cdn.example/a.css>',
          "@import url(//fonts.example/css);@font-face{src:url(/f.woff2)}",
          'fetch("//evil.example/x")',
          "/*! license https://github.com/preactjs/preact */",
        ].join("\n"),
      ),
    ).to.deep.equal([
      "x: https://cdn.example/x.js",
      "x: href=//cdn.example/a.css",
      "x: url(//fonts.example/css)",
      "x: @import url(//fonts.example/css)",
      'x: ("//evil.example/x"',
      "x: @font-face",
      "x: .woff2",
    ]);
  });
});

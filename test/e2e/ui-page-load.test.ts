import { expect } from "chai";
import { tracePath, uiPath } from "../../shared/ui-links.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendUiData, type UiData } from "../helpers/ui-data.js";

/** A Content-Security-Policy violation as the page reports it: directive, what was blocked, where. */
type Violation = string;

/** How long a view is given to load and draw its data (and refresh once) before it is checked. */
const SETTLE_MS = 1500;

describe("the web UI's pages under their Content-Security-Policy, in real Chromium", function () {
  this.timeout(120_000);
  let ui: UiSession;
  let data: UiData;
  const violations: Violation[] = [];

  before(async () => {
    ui = await startUiSession();
    data = await sendUiData(ui.collector.url);
    // Installed before any of the page's own scripts run, in every document the session loads.
    const watcher = await ui.browser.addInitScript((emit: (violation: Violation) => void) => {
      const page = globalThis as unknown as {
        document: {
          addEventListener(
            type: "securitypolicyviolation",
            listener: (event: {
              violatedDirective: string;
              blockedURI: string;
              sourceFile: string;
              lineNumber: number;
            }) => void,
          ): void;
        };
      };
      page.document.addEventListener("securitypolicyviolation", (event) =>
        emit(
          `${event.violatedDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`,
        ),
      );
    });
    watcher.on("data", (violation: Violation) => violations.push(violation));
  });
  after(async () => {
    await ui?.close();
  });

  /** Every view, with the filters and selections that make it draw the most. */
  const views = (): string[] => {
    const failed = data.failedTraceIds[0] as string;
    const failedSpan = data.spans.find((span) => span.traceId === failed && span.error) ?? data.spans[0];
    return [
      "/",
      uiPath("services"),
      uiPath("traces", { status: "error" }),
      tracePath(failed, failedSpan?.spanId),
      tracePath(data.loopTraceId),
      uiPath("logs", { severity: "error" }),
      uiPath("metrics", { name: data.metrics.counter, groupBy: "service" }),
      uiPath("metrics", { name: data.metrics.gauge }),
      uiPath("audit"),
    ];
  };

  it("reports a violation it is shown, so that its silence below means something", async () => {
    await ui.open("/");
    await ui.browser.execute(
      "const s = document.createElement('script'); s.src = 'https://cdn.example/x.js'; document.head.appendChild(s); document.body.setAttribute('style', 'color: red');",
    );
    await ui.browser.waitUntil(async () => violations.length >= 2, { timeout: 5000 });
    expect(violations.map((violation) => violation.split(" ")[0]).sort()).to.deep.equal([
      "script-src-elem",
      "style-src-attr",
    ]);
    violations.splice(0);
  });

  it("draws every view without a policy violation, with its stylesheet applied, loading only from the collector", async () => {
    const origin = ui.collector.url;
    const foreign: string[] = [];
    for (const path of views()) {
      await ui.open(path);
      await ui.browser.pause(SETTLE_MS);
      const loaded = (await ui.browser.execute(
        "return performance.getEntriesByType('resource').map((entry) => entry.name)",
      )) as unknown as string[];
      foreign.push(...loaded.filter((url) => !url.startsWith(`${origin}/`)).map((url) => `${path}: ${url}`));
      // The stylesheet is the page's own file, allowed by style-src 'self': its font is in effect.
      const font = String(await ui.browser.execute("return getComputedStyle(document.body).fontFamily"));
      expect(font, path).to.include("system-ui");
    }
    expect(violations).to.deep.equal([]);
    expect(foreign).to.deep.equal([]);
  });
});

import { expect } from "chai";
import { tracePath } from "../../shared/ui-links.js";
import { hexId } from "../helpers/otlp-builders.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { LOOP_QUERIES, sendLogs, sendSpans, sendUiData, type UiData, type UiSpan } from "../helpers/ui-data.js";
import { MARKUP_BOLD, MARKUP_IMG, markupTrace, sharedIdTraces } from "../helpers/ui-trace-cases.js";

const MS = 1_000_000n;

interface DomRow {
  key: string;
  level: number;
  expanded: string | null;
  selected: string | null;
  label: string;
  classes: string;
  left: number;
  width: number;
}

/** The rendered rows of the waterfall, as the page holds them. */
const ROWS_SCRIPT = `return [...document.querySelectorAll('[role=tree] [role=treeitem]')].map((row) => {
  const bar = row.querySelector('.wf-bar');
  return {
    key: row.dataset.key,
    level: Number(row.getAttribute('aria-level')),
    expanded: row.getAttribute('aria-expanded'),
    selected: row.getAttribute('aria-selected'),
    label: row.getAttribute('aria-label'),
    classes: row.className,
    left: parseFloat(bar.style.left),
    width: parseFloat(bar.style.width),
  };
});`;

/** A large trace: a root, BATCHES batch spans each with STEPS differently named children (nothing to fold). */
const BATCHES = 105;
const STEPS = 99;

function largeTrace(nowNs: bigint): { spans: UiSpan[]; traceId: string; lastSpanId: string } {
  const traceId = hexId(0x77000, 16);
  const at = nowNs - 40_000n * MS;
  let n = 0;
  const next = () => hexId(0x7000000 + n++, 8);
  const span = (spanId: string, parentSpanId: string | null, name: string, startUs: number, lengthUs: number) => ({
    service: ["web", "checkout", "payments"][n % 3] as string,
    traceId,
    spanId,
    parentSpanId,
    name,
    startNs: at + BigInt(startUs) * 1000n,
    endNs: at + BigInt(startUs + lengthUs) * 1000n,
    error: false,
    attributes: { "step.kind": "bench" },
  });
  const rootId = next();
  const spans: UiSpan[] = [span(rootId, null, "GET /large", 0, BATCHES * STEPS * 10 + 100)];
  let lastSpanId = rootId;
  for (let b = 0; b < BATCHES; b++) {
    const batchId = next();
    spans.push(span(batchId, rootId, `batch ${b}`, b * STEPS * 10 + 1, STEPS * 10));
    for (let s = 0; s < STEPS; s++) {
      lastSpanId = next();
      spans.push(span(lastSpanId, batchId, `step ${s}`, b * STEPS * 10 + 2 + s * 10, 8));
    }
  }
  return { spans, traceId, lastSpanId };
}

describe("the web UI's Trace view in real Chromium", function () {
  this.timeout(120_000);
  let ui: UiSession;
  let data: UiData;
  let large: ReturnType<typeof largeTrace>;
  let shared: ReturnType<typeof sharedIdTraces>;
  let markup: ReturnType<typeof markupTrace>;

  const rows = async () => (await ui.browser.execute(ROWS_SCRIPT)) as unknown as DomRow[];
  const rowCount = async () => {
    const label = String(await ui.browser.$("[role=tree]").getAttribute("aria-label"));
    return Number(/(\d+) rows/.exec(label)?.[1]);
  };
  const spansOf = (traceId: string) => data.spans.filter((span) => span.traceId === traceId);
  const spanNamed = (traceId: string, name: string) => spansOf(traceId).find((span) => span.name === name) as UiSpan;
  const openTrace = async (path: string) => {
    await ui.open(path);
    await ui.browser.$("[role=tree] [role=treeitem]").waitForExist({ timeout: 10_000 });
  };
  const waitForLocation = async (expected: string) =>
    ui.browser.waitUntil(async () => (await ui.location()) === expected, {
      timeout: 5000,
      timeoutMsg: `the address never became ${expected}`,
    });
  const press = async (key: string) => {
    await ui.browser.keys(key);
  };

  before(async () => {
    ui = await startUiSession();
    data = await sendUiData(ui.collector.url);
    const now = BigInt(Date.now()) * MS;
    large = largeTrace(now);
    for (let i = 0; i < large.spans.length; i += 2000)
      await sendSpans(ui.collector.url, large.spans.slice(i, i + 2000));
    shared = sharedIdTraces(now);
    markup = markupTrace(now);
    await sendSpans(ui.collector.url, [...shared.spans, markup.span]);
    await sendLogs(ui.collector.url, [markup.log]);
    // Ingest is asynchronous: wait until the store answers every trace whole.
    const counts: [string, number][] = [
      [large.traceId, large.spans.length],
      [shared.a, 3],
      [shared.b, 4],
      [markup.span.traceId, 1],
    ];
    for (const [traceId, count] of counts)
      await ui.browser.waitUntil(
        async () => {
          const answer = await fetch(`${ui.collector.url}/api/traces/${traceId}`);
          if (answer.status !== 200) return false;
          const body = (await answer.json()) as { data: { spanCount: number } };
          return body.data.spanCount === count;
        },
        { timeout: 30_000, interval: 200 },
      );
  });
  after(async () => {
    await ui?.close();
  });

  it("shows every span of a trace in depth-first order with its depth and its offset on the time axis", async () => {
    const traceId = data.traceIds[0] as string;
    await openTrace(tracePath(traceId));
    const sent = spansOf(traceId);
    const root = sent.find((span) => span.parentSpanId === null) as UiSpan;
    const lengthNs = Number(root.endNs - root.startNs);
    const depthOf = (span: UiSpan): number => {
      const parent = sent.find((candidate) => candidate.spanId === span.parentSpanId);
      return parent ? depthOf(parent) + 1 : 0;
    };
    // Depth-first, children by start time: the order `obs trace` prints.
    const ordered: UiSpan[] = [];
    const visit = (span: UiSpan) => {
      ordered.push(span);
      const children = sent.filter((c) => c.parentSpanId === span.spanId).sort((a, b) => Number(a.startNs - b.startNs));
      for (const child of children) visit(child);
    };
    visit(root);
    const shown = await rows();
    expect(shown.map((row) => row.key)).to.deep.equal(ordered.map((span) => span.spanId));
    expect(shown.map((row) => row.level)).to.deep.equal(ordered.map((span) => depthOf(span) + 1));
    shown.forEach((row, i) => {
      const span = ordered[i] as UiSpan;
      expect(row.left).to.be.closeTo((Number(span.startNs - root.startNs) / lengthNs) * 100, 0.01);
      expect(row.width).to.be.closeTo((Number(span.endNs - span.startNs) / lengthNs) * 100, 0.01);
    });
    const header = await ui.browser.$(".trace-header").getText();
    expect(header)
      .to.include("web: GET /checkout")
      .and.include("120ms")
      .and.match(/Spans\s+5/);
    // The critical path: the root's own time at its start, then down through cart into charge.
    const criticalScript =
      "return [...document.querySelectorAll('[role=treeitem]')].filter((r) => r.querySelector('.wf-critical')).map((r) => r.dataset.key)";
    const pathKeys = async () => (await ui.browser.execute(criticalScript)) as unknown as string[];
    await ui.browser.waitUntil(async () => (await pathKeys()).length > 0, { timeout: 5000 });
    expect(await pathKeys()).to.include.members([root.spanId, spanNamed(traceId, "charge").spanId]);
    await ui.screenshot("trace-waterfall");
  });

  it("marks an error trace's failing span, and selecting it shows its attributes and its exception's stack", async () => {
    const traceId = data.failedTraceIds[0] as string;
    const charge = spanNamed(traceId, "charge");
    await openTrace(tracePath(traceId));
    const chargeRow = (await rows()).find((row) => row.key === charge.spanId) as DomRow;
    expect(chargeRow.classes).to.include("error");
    expect(chargeRow.label).to.match(/^charge, payments, [\d.]+ms, error/);
    expect(await ui.browser.$(`[data-key="${charge.spanId}"] .wf-error-mark`).isExisting()).to.equal(true);
    expect(await ui.browser.$(".trace-facts").getText()).to.include("⚠ 2");
    await ui.browser.$(`[data-key="${charge.spanId}"]`).click();
    await waitForLocation(tracePath(traceId, charge.spanId));
    const detail = ui.browser.$(".span-detail");
    await detail.$("h2").waitForExist({ timeout: 5000 });
    expect(await detail.$("h2").getText()).to.equal("charge");
    const text = await detail.getText();
    expect(text).to.include("payment.provider").and.include("acme").and.include("card declined by issuer");
    expect(await detail.$("pre").getText()).to.equal(charge.exception?.stacktrace);
    await ui.screenshot("trace-error-detail");
  });

  it("draws the trace's correlated logs on their span's row and lists them; a listed log selects its span", async () => {
    const traceId = data.failedTraceIds[0] as string;
    const cart = spanNamed(traceId, "POST /cart");
    const charge = spanNamed(traceId, "charge");
    await openTrace(tracePath(traceId));
    const logs = data.logs.filter((log) => log.traceId === traceId);
    await ui.browser.$(".trace-logs tbody tr").waitForExist({ timeout: 5000 });
    const cartMarker = await ui.browser.$(`[data-key="${cart.spanId}"] .wf-log`).getAttribute("title");
    expect(cartMarker).to.include(logs.find((log) => log.spanId === cart.spanId)?.body as string);
    const chargeMarker = await ui.browser.$(`[data-key="${charge.spanId}"] .wf-log`).getAttribute("title");
    expect(chargeMarker).to.include("ERROR").and.include("card declined");
    const listed = await ui.browser.$$(".trace-logs tbody tr").map((row) => row.getText());
    expect(listed).to.have.length(logs.length);
    expect(listed[0]).to.include("INFO").and.include("cart 3 has 3 items");
    expect(listed[1]).to.include("ERROR").and.include('"event":"charge.failed"');
    await ui.browser.$(".trace-logs tbody tr:nth-child(2) button").click();
    await waitForLocation(tracePath(traceId, charge.spanId));
  });

  it("reproduces a selection from a deep link, and moves, closes and opens rows with the keys", async () => {
    const traceId = data.traceIds[1] as string;
    const root = spanNamed(traceId, "GET /checkout");
    const cart = spanNamed(traceId, "POST /cart");
    await openTrace(tracePath(traceId, cart.spanId));
    let shown = await rows();
    expect(shown.find((row) => row.selected === "true")?.key).to.equal(cart.spanId);
    await ui.browser.$(".span-detail h2").waitForExist({ timeout: 5000 });
    expect(await ui.browser.$(".span-detail h2").getText()).to.equal("POST /cart");
    await ui.browser.execute(`document.querySelector('[role=tree]').focus()`);
    await press("ArrowLeft");
    await ui.browser.waitUntil(async () => (await rowCount()) === 2, { timeout: 5000 });
    shown = await rows();
    expect(shown.find((row) => row.key === cart.spanId)?.expanded).to.equal("false");
    await press("ArrowLeft");
    await waitForLocation(tracePath(traceId, root.spanId));
    await press("ArrowLeft");
    await ui.browser.waitUntil(async () => (await rowCount()) === 1, { timeout: 5000 });
    await press("ArrowRight");
    await ui.browser.waitUntil(async () => (await rowCount()) === 2, { timeout: 5000 });
    await press("ArrowDown");
    await waitForLocation(tracePath(traceId, cart.spanId));
    await press("Enter");
    await ui.browser.waitUntil(async () => (await rowCount()) === 5, { timeout: 5000 });
    await press("ArrowDown");
    await waitForLocation(tracePath(traceId, spanNamed(traceId, "SELECT cart").spanId));
  });

  it("reads the loop trace's 50 identical queries as one row ×50, which opens", async () => {
    const traceId = data.loopTraceId;
    await openTrace(tracePath(traceId));
    let shown = await rows();
    expect(shown).to.have.length(2);
    const group = shown[1] as DomRow;
    expect(group.label).to.match(new RegExp(`^SELECT orders ×${LOOP_QUERIES}, web, `));
    expect(group.expanded).to.equal("false");
    const queries = spansOf(traceId).filter((span) => span.name === "SELECT orders");
    const root = spanNamed(traceId, "GET /orders");
    const lengthNs = Number(root.endNs - root.startNs);
    expect(group.left).to.be.closeTo((Number((queries[0] as UiSpan).startNs - root.startNs) / lengthNs) * 100, 0.01);
    const extentNs = (queries.at(-1) as UiSpan).endNs - (queries[0] as UiSpan).startNs;
    expect(group.width).to.be.closeTo((Number(extentNs) / lengthNs) * 100, 0.01);
    expect(await ui.browser.$(`[data-key="${group.key}"]`).getText())
      .to.include("×50")
      .and.include("50ms total");
    await ui.browser.$(`[data-key="${group.key}"]`).click();
    await ui.browser.$(".span-detail h2").waitForExist({ timeout: 5000 });
    expect(await ui.browser.$(".span-detail h2").getText()).to.equal("SELECT orders ×50");
    await ui.screenshot("trace-loop");
    await press("ArrowRight");
    await ui.browser.waitUntil(async () => (await rowCount()) === 2 + LOOP_QUERIES, { timeout: 5000 });
    shown = await rows();
    expect(shown[2]?.key).to.equal((queries[0] as UiSpan).spanId);
    expect(shown[2]?.level).to.equal(3);
  });

  it("filters by service and by text in the address, keeping each match's ancestors as context", async () => {
    const traceId = data.traceIds[2] as string;
    const [root, cart, charge, stock] = ["GET /checkout", "POST /cart", "charge", "UPDATE stock"].map((name) =>
      spanNamed(traceId, name),
    ) as [UiSpan, UiSpan, UiSpan, UiSpan];
    await openTrace(tracePath(traceId));
    await ui.browser.$("select[aria-label='Service filter']").selectByVisibleText("payments");
    await waitForLocation(`${tracePath(traceId)}?service=payments`);
    await ui.browser.waitUntil(async () => (await rowCount()) === 3, { timeout: 5000 });
    let shown = await rows();
    expect(shown.map((row) => row.key)).to.deep.equal([root.spanId, cart.spanId, charge.spanId]);
    expect(shown.map((row) => row.classes.includes("context"))).to.deep.equal([true, true, false]);
    await ui.browser.$("select[aria-label='Service filter']").selectByVisibleText("all services");
    await ui.browser.$("body").click();
    await press("/");
    await ui.browser.keys("stock".split(""));
    await waitForLocation(`${tracePath(traceId)}?q=stock`);
    await ui.browser.waitUntil(async () => (await rowCount()) === 3, { timeout: 5000 });
    shown = await rows();
    expect(shown.map((row) => row.key)).to.deep.equal([root.spanId, cart.spanId, stock.spanId]);
    expect(await ui.browser.$(".filter-count").getText()).to.include("1 of 5 spans match");
  });

  it("renders only a window of a 10,000+ span trace's rows, pages the rest in, and scrolls to its last span", async () => {
    await openTrace(tracePath(large.traceId));
    await ui.browser.waitUntil(async () => (await rowCount()) === large.spans.length, {
      timeout: 20_000,
      timeoutMsg: "the later pages of the trace never arrived",
    });
    expect(await ui.browser.$(".trace-progress").isExisting()).to.equal(false);
    const rendered = (await rows()).length;
    expect(rendered).to.be.greaterThan(10).and.lessThan(120);
    await ui.browser.execute("const t = document.querySelector('[role=tree]'); t.scrollTop = t.scrollHeight;");
    await ui.browser.waitUntil(async () => (await rows()).at(-1)?.key === large.lastSpanId, {
      timeout: 5000,
      timeoutMsg: "the last span never showed at the end of the scroll",
    });
    expect((await rows()).length).to.be.lessThan(120);
  });

  it("answers an unknown trace with the collector's message and a way back", async () => {
    await ui.open(tracePath("0123456789abcdef0123456789abcdef"));
    const box = ui.browser.$(".error-box");
    await box.waitForExist({ timeout: 5000 });
    expect(await box.getText()).to.include("no trace 0123456789abcdef0123456789abcdef");
    expect(await ui.browser.$("main").$("a=← Back to Traces").getAttribute("href")).to.equal("/ui/traces");
    await ui.open(tracePath("not-hex"));
    await ui.browser.$(".error-box").waitForExist({ timeout: 5000 });
    expect(await ui.browser.$(".error-box").getText()).to.not.equal("");
  });

  it("reads in the dark scheme and on a 390 px wide window", async () => {
    const traceId = data.failedTraceIds[1] as string;
    const charge = spanNamed(traceId, "charge");
    await ui.colourScheme("dark");
    await openTrace(tracePath(traceId, charge.spanId));
    await ui.browser.$(".span-detail h2").waitForExist({ timeout: 5000 });
    const background = await ui.browser.execute("return getComputedStyle(document.body).backgroundColor");
    expect(background).to.equal("rgb(20, 23, 28)");
    await ui.screenshot("trace-dark");
    await ui.colourScheme("");
    await ui.browser.setViewport({ width: 390, height: 800 });
    await openTrace(tracePath(traceId, charge.spanId));
    const width = (await ui.browser.execute("return document.documentElement.scrollWidth")) as unknown as number;
    const viewport = (await ui.browser.execute("return window.innerWidth")) as unknown as number;
    expect(width).to.be.at.most(viewport);
    await ui.screenshot("trace-narrow");
    await ui.browser.setViewport({ width: 1280, height: 800 });
  });

  it("names the other trace of a span id it does not hold, and starts that trace afresh (nothing carried over)", async () => {
    const { a, b, ids } = shared;
    await openTrace(tracePath(a, ids.extra));
    const notice = ui.browser.$(".span-detail .cap-notice");
    await notice.waitForExist({ timeout: 5000 });
    expect(await notice.getText()).to.include(`belongs to trace ${b}`);
    expect(await ui.browser.$(".span-detail h2").isExisting()).to.equal(false);
    await ui.screenshot("trace-span-of-other-trace");
    // Close A's middle row (its id is B's middle row's too), then follow the notice's link to B.
    await ui.browser.$(`[data-key="${ids.middle}"] .wf-toggle`).click();
    await ui.browser.waitUntil(async () => (await rows()).length === 2, { timeout: 5000 });
    await notice.$("a").click();
    await waitForLocation(tracePath(b, ids.extra));
    // All four of B's rows: while the view changes trace it may show none, of which every() holds.
    await ui.browser.waitUntil(
      async () => {
        const shown = await rows();
        return shown.length === 4 && shown.every((row) => row.label.startsWith("B "));
      },
      { timeout: 5000, timeoutMsg: "trace B's rows never replaced trace A's" },
    );
    const shown = await rows();
    expect(shown.map((row) => [row.key, row.expanded])).to.deep.equal([
      [ids.root, "true"],
      [ids.middle, "true"],
      [ids.leaf, null],
      [ids.extra, null],
    ]);
    await ui.browser.$(".span-detail h2").waitForExist({ timeout: 5000 });
    expect(await ui.browser.$(".span-detail h2").getText()).to.equal("B extra");
  });

  it("shows telemetry that is markup as text: no element made from it, no script run", async () => {
    const { span } = markup;
    await openTrace(tracePath(span.traceId));
    await ui.browser.$(".trace-logs tbody tr").waitForExist({ timeout: 5000 });
    await ui.browser.$(`[data-key="${span.spanId}"]`).click();
    await ui.browser.$(".span-detail h2").waitForExist({ timeout: 5000 });
    expect(await ui.browser.$(".span-detail h2").getText()).to.equal(MARKUP_IMG);
    expect(await ui.browser.$(`[data-key="${span.spanId}"] .wf-label`).getText()).to.include(MARKUP_IMG);
    const detail = await ui.browser.$(".span-detail").getText();
    expect(detail).to.include(MARKUP_BOLD).and.include(MARKUP_IMG);
    expect(await ui.browser.$(".trace-logs tbody").getText()).to.include(`${MARKUP_BOLD} ${MARKUP_IMG}`);
    const made = await ui.browser.execute(
      "return document.querySelectorAll('.waterfall img, .waterfall b, .span-detail img, .span-detail b, .trace-logs img, .trace-logs b').length",
    );
    expect(made).to.equal(0);
    expect(await ui.browser.execute("return typeof window.__xss")).to.equal("undefined");
    // Its severity is text only (number 0, "ERROR"): red on the waterfall as in the Logs view.
    expect(await ui.browser.$(`[data-key="${span.spanId}"] .wf-log`).getAttribute("class")).to.include("sev-error");
    expect(await ui.browser.$(".trace-logs tbody td.sev").getAttribute("class")).to.include("sev-error");
    await ui.screenshot("trace-markup-as-text");
  });
});

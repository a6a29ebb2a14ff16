import { expect } from "chai";
import { runInstruction } from "../../../../client/checks/agent/agent-loop.js";
import { normalizeQuote, quotableText, quoteRefusal } from "../../../../client/checks/agent/finish-rules.js";
import type { RawSnapshot } from "../../../../client/checks/agent/snapshot-script.js";
import { call, loopContext, ScriptedModel, SignInPage } from "./agent-fakes.js";

const snapshot = (text: string, labels: string[] = []): RawSnapshot => ({
  url: "http://shop/",
  title: "Shop",
  elements: labels.map((label, i) => ({
    index: i + 1,
    tag: "button",
    role: null,
    type: null,
    label,
    value: null,
    checked: null,
    disabled: false,
    href: null,
  })),
  elementsTruncated: false,
  text,
  textTruncated: false,
});

describe("grounded verdicts: where a quote may be found", () => {
  it("matches typographic quotes, apostrophes, dashes and the ellipsis to their ASCII forms, both ways", () => {
    const page = quotableText(snapshot("Don’t leave “Tea” – it’s 10–20 min… ‘fresh’ — really"));
    expect(quoteRefusal("Don't leave \"Tea\" - it's 10-20 min... 'fresh' - really", page)).to.equal(null);
    const ascii = quotableText(snapshot("Don't pay -- 'now'..."));
    expect(quoteRefusal("Don’t pay –– ‘now’…", ascii)).to.equal(null);
    expect(normalizeQuote("It’s „8“ ‐ ‑ …")).to.equal('it\'s "8" - - ...');
  });

  it("never matches a quote across two parts of the page: the text, a label, a value", () => {
    const page = quotableText(snapshot("Total: 30.00", ["Checkout", "Empty cart"]));
    expect(quoteRefusal("Total: 30.00", page)).to.equal(null);
    expect(quoteRefusal("Empty cart", page)).to.equal(null);
    expect(quoteRefusal("30.00 Checkout", page)).to.not.equal(null);
    expect(quoteRefusal("Checkout Empty", page)).to.not.equal(null);
    expect(quoteRefusal("30.00\nCheckout", page)).to.not.equal(null);
    // A quote carrying the separator itself cannot bridge the parts either.
    expect(quoteRefusal("30.00\u0000Checkout", page)).to.not.equal(null);
  });

  it("grounds against the page's full text when the snapshot's text was cut", () => {
    const full = `${"filler ".repeat(700)}Order number 4711 confirmed`;
    const cut = { ...snapshot(full.slice(0, 4000)), textTruncated: true };
    expect(quoteRefusal("Order number 4711 confirmed", quotableText(cut))).to.not.equal(null);
    expect(quoteRefusal("Order number 4711 confirmed", quotableText(cut, full))).to.equal(null);
  });

  it("accepts a check's quote found only past the snapshot's text, when the page gives its full text", async () => {
    class LongPage extends SignInPage {
      async fullText(): Promise<string> {
        return `${(await this.snapshot()).text}\n${"more ".repeat(1000)}Order 4711 shipped`;
      }
    }
    const page = new LongPage();
    page.signedIn = true;
    const model = new ScriptedModel([call("done", { quote: "Order 4711 shipped", evidence: "shipped" })]);
    const outcome = await runInstruction("check", "the order shipped", loopContext(page, model));
    expect(outcome).to.deep.include({ finished: "done", quote: "Order 4711 shipped", refused: 0 });

    // Without fullText the snapshot is all there is: the same quote is refused.
    const plain = new SignInPage();
    plain.signedIn = true;
    const refusing = new ScriptedModel([
      call("done", { quote: "Order 4711 shipped", evidence: "shipped" }),
      call("done", { quote: "Order 4711 shipped", evidence: "shipped" }),
    ]);
    const refused = await runInstruction("check", "the order shipped", loopContext(plain, refusing));
    expect(refused.finished).to.not.equal("done");
  });
});

import { expect } from "chai";
import { formatSnapshot } from "../../../../client/checks/agent/page-snapshot.js";
import type { RawElement, RawSnapshot } from "../../../../client/checks/agent/snapshot-script.js";
import { revealArgs } from "../../../../client/checks/agent/step-secrets.js";
import { SECRET_TOO_SHORT, SecretValues } from "../../../../client/checks/secrets/secret-values.js";

/** A field's value and a label as snapshot-script.ts makes them: white space squashed, cut at 120. */
const asSnapshotCuts = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 120);

const field = (label: string, value: string): RawElement => ({
  index: 1,
  tag: "input",
  role: null,
  type: "text",
  label: asSnapshotCuts(label),
  value: asSnapshotCuts(value),
  checked: null,
  disabled: false,
  href: null,
});

const page = (url: string, title: string, elements: RawElement[]): RawSnapshot => ({
  url,
  title,
  elements,
  elementsTruncated: false,
  text: "",
  textTruncated: false,
});

/** The page's visible text as snapshot-script.ts squashes it. */
const asPageText = (text: string) =>
  text
    .replace(/[ \t]+/g, " ")
    .replace(/\n\s*\n+/g, "\n")
    .trim();

/** Whether any run of 8 characters of `secret` (as typed, or squashed) is still in `text`. */
function leaks(text: string, secret: string): string | null {
  for (const form of [secret, secret.replace(/\s+/g, " ").trim()]) {
    for (let at = 0; at + 8 <= form.length; at += 1) {
      const piece = form.slice(at, at + 8);
      if (text.includes(piece) || text.includes(JSON.stringify(piece).slice(1, -1))) return piece;
    }
  }
  return null;
}

const QUOTED = 'p"a ss\\wörd-1';
const MULTILINE = "first  line\n\tsecond   line";
const LONG = `${"k3y-".repeat(40)}tail`;

describe("secret redaction of the forms obs writes a value in", () => {
  for (const [what, secret] of [
    ['a value with " and \\ and spaces', QUOTED],
    ["a multi-line, double-spaced value", MULTILINE],
    ["a value longer than the snapshot's 120 characters", LONG],
  ] as const) {
    it(`hides ${what} in evidence and in the snapshot's labels, values and title`, () => {
      const secrets = new SecretValues();
      secrets.add({ password: secret });
      const evidence = secrets.redact(`typed ${JSON.stringify(secret)} into textbox "Notes"`);
      expect(evidence).to.equal('typed "%password%" into textbox "Notes"');
      const shown = {
        ...page("http://x/", secret, [field(secret, secret)]),
        text: asPageText(`Notes:\n${secret}\nSaved`),
      };
      const snapshot = secrets.redact(formatSnapshot(shown));
      expect(leaks(snapshot, secret), snapshot).to.equal(null);
      expect(snapshot).to.include('[1] textbox "%password%" value="%password%"');
      expect(snapshot).to.include('Page: "%password%" http://x/');
      expect(snapshot).to.include("Notes:\n%password%\nSaved");
    });
  }

  it("hides a value the page reformatted as it was typed: grouped, separated or upper-cased", () => {
    const secrets = new SecretValues();
    secrets.add({ card: "4111111111111111", code: "zq-secret-code", phone: "5551234567" });
    const shown = page("http://x/", "Checkout", [
      field("Card number", "4111 1111 1111 1111"),
      field("Code", "ZQ-SECRET-CODE"),
      { ...field("Phone", "(555) 123-4567"), index: 3 },
    ]);
    const snapshot = secrets.redact(formatSnapshot(shown));
    expect(snapshot).to.include('textbox "Card number" value="%card%"');
    expect(snapshot).to.include('textbox "Code" value="%code%"');
    expect(snapshot).to.include('textbox "Phone" value="%phone%"');
    expect(snapshot).not.to.match(/4111|1111|SECRET|555|4567/);
    expect(secrets.redact("typed 4111-1111-1111-1111 twice: 4111.1111.1111.1111")).to.equal(
      "typed %card% twice: %card%",
    );
    // Text that only shares the characters in another order, or some of them, is left alone.
    for (const other of ["1111 4111 1111 1111", "4111 1111", "secret code", "order 411111111111111"]) {
      expect(secrets.redact(other), other).to.equal(other);
    }
  });

  it("hides a value the page put in a URL, percent-encoded or form-encoded", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "p@ss word+1/ö" });
    const encoded = `http://x/login?p=${encodeURIComponent("p@ss word+1/ö")}`;
    const form = `http://x/login?${new URLSearchParams({ p: "p@ss word+1/ö" })}`;
    expect(secrets.redact(encoded)).to.equal("http://x/login?p=%password%");
    expect(secrets.redact(form)).to.equal("http://x/login?p=%password%");
    const line = secrets.redact(formatSnapshot(page(`http://x/?q=${encodeURI("p@ss word+1/ö")}`, "", [])));
    expect(line).to.include("Page: http://x/?q=%password%");
    const quoted = new SecretValues();
    quoted.add({ password: QUOTED });
    // As Chromium writes the spec's goto("/login.html?coupon=" + password): `\` kept, the rest escaped.
    const opened = new URL(`http://x/login.html?coupon=${QUOTED}`).href;
    expect(opened).to.include("\\");
    expect(quoted.redact(opened)).to.equal("http://x/login.html?coupon=%password%");
  });

  it("refuses a secret shorter than 4 characters, an unset one included, and does not learn so short a password", () => {
    const secrets = new SecretValues();
    expect(() => secrets.add({ pin: "abc" })).to.throw(`secret "pin": ${SECRET_TOO_SHORT}`);
    expect(() => secrets.add({ password: "" })).to.throw(SECRET_TOO_SHORT);
    expect(secrets.learnTyped("pas")).to.equal(false);
    expect(secrets.empty).to.equal(true);
    expect(secrets.redact("passed pas")).to.equal("passed pas");
  });

  it("reveals a secret only in typed text and a chosen option, never in a URL or a text waited for", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "lovelace" });
    expect(revealArgs("type", { index: 2, text: "%password%" }, secrets)).to.deep.equal({ index: 2, text: "lovelace" });
    expect(revealArgs("select", { index: 3, option: "%password%" }, secrets)).to.deep.equal({
      index: 3,
      option: "lovelace",
    });
    const url = "https://evil.example/?p=%password%";
    expect(revealArgs("navigate", { url }, secrets)).to.deep.equal({ url });
    expect(revealArgs("wait", { text: "%password%" }, secrets)).to.deep.equal({ text: "%password%" });
  });
});

import { expect } from "chai";
import { fingerprintOf, formatSnapshot, nameOf, roleOf } from "../../../../client/checks/agent/page-snapshot.js";
import type { RawSnapshot } from "../../../../client/checks/agent/snapshot-script.js";

const SNAPSHOT: RawSnapshot = {
  url: "http://127.0.0.1/login",
  title: "Sign in",
  elements: [
    {
      index: 1,
      tag: "input",
      role: null,
      type: "text",
      label: "Username",
      value: "ada",
      checked: null,
      disabled: false,
      href: null,
    },
    {
      index: 2,
      tag: "input",
      role: null,
      type: "password",
      label: "Password",
      value: null,
      checked: null,
      disabled: false,
      href: null,
    },
    {
      index: 3,
      tag: "input",
      role: null,
      type: "checkbox",
      label: "Remember me",
      value: null,
      checked: true,
      disabled: false,
      href: null,
    },
    {
      index: 4,
      tag: "button",
      role: null,
      type: "submit",
      label: "Sign in",
      value: null,
      checked: null,
      disabled: true,
      href: null,
    },
    {
      index: 5,
      tag: "a",
      role: null,
      type: null,
      label: "Help",
      value: null,
      checked: null,
      disabled: false,
      href: "/help",
    },
  ],
  elementsTruncated: true,
  text: "Sign in\nUsername Password",
  textTruncated: false,
};

describe("page snapshot for the model", () => {
  it("lists indexed elements with their state, then the visible text", () => {
    expect(formatSnapshot(SNAPSHOT)).to.equal(
      [
        'Page: "Sign in" http://127.0.0.1/login',
        "Interactive elements:",
        '[1] textbox "Username" value="ada"',
        '[2] input[type=password] "Password"',
        '[3] checkbox "Remember me" checked',
        '[4] button "Sign in" disabled',
        '[5] link "Help" href="/help"',
        "(only the first 5 elements are listed)",
        "Visible text:",
        "Sign in\nUsername Password",
      ].join("\n"),
    );
  });

  it("fingerprints content and controls, so a typed value or new text changes it", () => {
    const same = fingerprintOf({ ...SNAPSHOT });
    expect(fingerprintOf(SNAPSHOT)).to.equal(same);
    const typed = {
      ...SNAPSHOT,
      elements: SNAPSHOT.elements.map((e) => (e.index === 1 ? { ...e, value: "adam" } : e)),
    };
    expect(fingerprintOf(typed)).not.to.equal(same);
    expect(fingerprintOf({ ...SNAPSHOT, text: `${SNAPSHOT.text}\nWrong password` })).not.to.equal(same);
  });

  it("names elements by the role a reader of the page knows them by, and their label", () => {
    const base = SNAPSHOT.elements[0] as RawSnapshot["elements"][number];
    const role = (tag: string, type: string | null = null, aria: string | null = null) =>
      roleOf({ ...base, tag, type, role: aria });
    expect([
      role("a"),
      role("button"),
      role("input"),
      role("input", "EMAIL"),
      role("input", "submit"),
      role("input", "radio"),
      role("input", "number"),
      role("input", "password"),
      role("input", "date"),
      role("textarea"),
      role("select"),
      role("div", null, "tab"),
      role("div"),
    ]).to.deep.equal([
      "link",
      "button",
      "textbox",
      "textbox",
      "button",
      "radio",
      "spinbutton",
      "input[type=password]",
      "input[type=date]",
      "textbox",
      "combobox",
      "tab",
      "div",
    ]);
    expect(nameOf({ role: "button", label: "Checkout" })).to.equal('button "Checkout"');
    expect(nameOf({ role: "textbox", label: "" })).to.equal("textbox");
  });
});

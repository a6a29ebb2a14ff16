/** The page as the model sees it, and its fingerprint for the stall guard. Pure. */
import { createHash } from "node:crypto";
import type { SnapshotElementRef } from "../providers/model-provider.js";
import type { RawElement, RawSnapshot } from "./snapshot-script.js";

export const MAX_ELEMENTS = 150;
export const MAX_TEXT = 4000;

/** Same page content and controls give the same fingerprint; scroll position and time do not count. */
export function fingerprintOf(snapshot: RawSnapshot): string {
  const essentials = {
    url: snapshot.url,
    elements: snapshot.elements.map((element) => [
      element.tag,
      element.label,
      element.value,
      element.checked,
      element.disabled,
    ]),
    text: snapshot.text,
  };
  return createHash("sha1").update(JSON.stringify(essentials)).digest("hex");
}

/** The input types a screen reader calls a textbox; the others keep their type (`input[type=password]`). */
const TEXTBOX_TYPES = new Set(["text", "email", "search", "tel", "url"]);
const BUTTON_TYPES = new Set(["submit", "button", "reset", "image"]);

/**
 * What an element is, as a reader of the page would name it: its ARIA role when it has one,
 * else the role its tag implies (`link`, `button`, `textbox`, `checkbox`, `combobox`), else
 * the tag, with an input's type when no role fits (`input[type=password]`, `input[type=date]`).
 */
export function roleOf(element: RawElement): string {
  if (element.role) return element.role;
  const type = (element.type ?? "").toLowerCase();
  switch (element.tag) {
    case "a":
      return "link";
    case "button":
    case "summary":
      return "button";
    case "textarea":
      return "textbox";
    case "select":
      return "combobox";
    case "input":
      if (type === "" || TEXTBOX_TYPES.has(type)) return "textbox";
      if (BUTTON_TYPES.has(type)) return "button";
      if (type === "checkbox" || type === "radio") return type;
      if (type === "number") return "spinbutton";
      return `input[type=${type}]`;
    default:
      return element.tag;
  }
}

/** An element in words for steps and reports: `button "Checkout"`, or the role alone when it has no label. */
export function nameOf(element: { role: string; label: string }): string {
  return element.label ? `${element.role} ${JSON.stringify(element.label)}` : element.role;
}

function describeElement(element: RawElement): string {
  const parts = [`[${element.index}] ${roleOf(element)}`];
  if (element.label) parts.push(JSON.stringify(element.label));
  if (element.value !== null && element.value !== "") parts.push(`value=${JSON.stringify(element.value)}`);
  if (element.checked !== null) parts.push(element.checked ? "checked" : "unchecked");
  if (element.disabled) parts.push("disabled");
  if (element.href) parts.push(`href=${JSON.stringify(element.href)}`);
  return parts.join(" ");
}

/** The compact, indexed text the model reads. */
export function formatSnapshot(snapshot: RawSnapshot): string {
  const lines = [
    `Page: ${snapshot.title ? `${JSON.stringify(snapshot.title)} ` : ""}${snapshot.url}`,
    "Interactive elements:",
  ];
  if (snapshot.elements.length === 0) lines.push("(none)");
  for (const element of snapshot.elements) lines.push(describeElement(element));
  if (snapshot.elementsTruncated) lines.push(`(only the first ${snapshot.elements.length} elements are listed)`);
  lines.push("Visible text:", snapshot.text || "(none)");
  if (snapshot.textTruncated) lines.push("(text truncated)");
  return lines.join("\n");
}

export function elementRefs(snapshot: RawSnapshot): SnapshotElementRef[] {
  return snapshot.elements.map((element) => ({ index: element.index, label: element.label }));
}

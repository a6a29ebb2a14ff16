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

function describeElement(element: RawElement): string {
  const kind = element.role ?? (element.type && element.tag === "input" ? `input[type=${element.type}]` : element.tag);
  const parts = [`[${element.index}] ${kind}`];
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

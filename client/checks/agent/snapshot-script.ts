/**
 * Runs inside the page (serialised by webdriverio): indexes the visible interactive elements
 * with `data-obs-index` and returns them with the page's visible text, both bounded. Password
 * values never leave the page.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: this code runs in the browser, where DOM types are not loaded
// biome-ignore-all lint/performance/useDomNodeTextContent: innerText is the rendered, visible text the model must read
export interface RawElement {
  index: number;
  tag: string;
  role: string | null;
  type: string | null;
  label: string;
  value: string | null;
  checked: boolean | null;
  disabled: boolean;
  href: string | null;
}

export interface RawSnapshot {
  url: string;
  title: string;
  elements: RawElement[];
  elementsTruncated: boolean;
  text: string;
  textTruncated: boolean;
}

export function collectPageSnapshot(maxElements: number, maxText: number): RawSnapshot {
  const win = globalThis as any;
  const doc = win.document;
  const selector = [
    "a[href]",
    "button",
    "input:not([type=hidden])",
    "select",
    "textarea",
    "summary",
    "[role=button]",
    "[role=link]",
    "[role=checkbox]",
    "[role=radio]",
    "[role=tab]",
    "[role=menuitem]",
    "[role=option]",
    "[role=switch]",
    "[contenteditable=true]",
    "[contenteditable='']",
    "[onclick]",
  ].join(",");
  for (const old of doc.querySelectorAll("[data-obs-index]")) old.removeAttribute("data-obs-index");
  const squash = (text: unknown) =>
    String(text ?? "")
      .replace(/\s+/g, " ")
      .trim();
  const visible = (el: any) => {
    const box = el.getBoundingClientRect();
    const style = win.getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== "hidden" && style.display !== "none";
  };
  const labelOf = (el: any): string => {
    const labelledBy = el.getAttribute("aria-labelledby");
    const byId = labelledBy
      ? labelledBy
          .split(/\s+/)
          .map((id: string) => doc.getElementById(id)?.innerText ?? "")
          .join(" ")
      : "";
    const candidates = [
      el.getAttribute("aria-label"),
      byId,
      el.labels?.[0]?.innerText,
      el.getAttribute("placeholder"),
      el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" ? "" : el.innerText,
      el.tagName === "INPUT" && ["submit", "button", "reset"].includes(el.type) ? el.value : "",
      el.getAttribute("title"),
      el.querySelector?.("img[alt]")?.getAttribute("alt"),
      el.getAttribute("name"),
    ];
    for (const candidate of candidates) {
      const text = squash(candidate);
      // Squashed and cut here, in the page, which is never handed the secrets: SecretValues
      // (secrets/secret-values.ts) registers each value's squashed form and its first 120
      // characters, so a label or value that is a secret is still redacted after this.
      if (text) return text.slice(0, 120);
    }
    return "";
  };
  const elements: RawElement[] = [];
  let elementsTruncated = false;
  for (const el of doc.querySelectorAll(selector)) {
    if (!visible(el)) continue;
    if (elements.length >= maxElements) {
      elementsTruncated = true;
      break;
    }
    const index = elements.length + 1;
    el.setAttribute("data-obs-index", String(index));
    const tag = el.tagName.toLowerCase();
    const type = el.getAttribute("type");
    const isField = tag === "input" || tag === "textarea" || tag === "select";
    const secret = tag === "input" && String(type).toLowerCase() === "password";
    elements.push({
      index,
      tag,
      role: el.getAttribute("role"),
      type,
      label: labelOf(el),
      // Squashed and cut as labels are (see labelOf): secret-values.ts knows both forms.
      value:
        isField && !secret && !["checkbox", "radio"].includes(String(type)) ? squash(el.value).slice(0, 120) : null,
      checked: tag === "input" && ["checkbox", "radio"].includes(String(type)) ? Boolean(el.checked) : null,
      disabled: Boolean(el.disabled) || el.getAttribute("aria-disabled") === "true",
      href: tag === "a" ? el.getAttribute("href") : null,
    });
  }
  const text = String(doc.body?.innerText ?? "")
    .replace(/[ \t]+/g, " ")
    .replace(/\n\s*\n+/g, "\n")
    .trim();
  return {
    url: String(win.location.href),
    title: String(doc.title ?? ""),
    elements,
    elementsTruncated,
    text: text.slice(0, maxText),
    textTruncated: text.length > maxText,
  };
}

// biome-ignore-all lint/suspicious/noExplicitAny: the functions passed to execute() run in the page, without DOM types
// biome-ignore-all lint/performance/useDomNodeTextContent: innerText is the rendered, visible text
/**
 * The agent's hands: snapshots and tool actions on a webdriverio session. Thin: every decision
 * is made in the agent loop; this only talks to the browser.
 */
import type { Browser } from "webdriverio";
import { MAX_ELEMENTS, MAX_TEXT } from "../agent/page-snapshot.js";
import { collectPageSnapshot, type RawSnapshot } from "../agent/snapshot-script.js";
import { maskedScreenshot } from "./vision-screenshot.js";

const SETTLE_TIMEOUT_MS = 5_000;
const MAX_WAIT_MS = 10_000;
const SCROLL_PIXELS = 600;
/** The most of a page's visible text a check's quote is looked for in (1 MB of characters). */
export const MAX_FULL_TEXT = 1_000_000;

/** An action that could not be done; the model is told why and may try something else. */
export class ActionError extends Error {
  override name = "ActionError";
}

export function resolveUrl(url: string, baseUrl: string | null): string {
  if (URL.canParse(url)) return url;
  if (!baseUrl) throw new ActionError(`"${url}" is relative and no --base-url is set`);
  return new URL(url, baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`).href;
}

/**
 * `url` as the runner shows it to the model and writes it down: without the user name and
 * password a base URL may carry (`http://user:password@host/`), which the browser keeps in the
 * page's own URL. Chromium remembers them for the origin, so the model can open the same URL
 * without them.
 */
export function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.username === "" && parsed.password === "") return url;
  parsed.username = "";
  parsed.password = "";
  return parsed.href;
}

export class BrowserPage {
  constructor(
    readonly browser: Browser,
    private readonly baseUrl: string | null,
    private readonly keys: Record<string, string>,
    /** How the browser itself reaches a URL (a containerized browser reaches the host by another name). */
    private readonly urlForBrowser: (url: string) => string = (url) => url,
  ) {}

  /** Opens `url` (relative to the base URL); returns it as opened, without credentials (withoutCredentials). */
  async goto(url: string): Promise<string> {
    const target = resolveUrl(url, this.baseUrl);
    const shown = withoutCredentials(target);
    try {
      await this.browser.url(this.urlForBrowser(target));
    } catch (error) {
      const reason = /net::[A-Z_]+/.exec((error as Error).message)?.[0] ?? (error as Error).message.split("\n")[0];
      throw new ActionError(`could not open ${shown} (${reason})`);
    }
    // Some failures (an unsafe port, a blocked address) load Chromium's error page instead of throwing.
    const errorCode = await this.browser.execute(() => {
      const doc = (globalThis as any).document;
      return doc.querySelector("#main-frame-error")
        ? String(doc.querySelector(".error-code")?.textContent ?? "error page")
        : null;
    });
    if (errorCode) throw new ActionError(`could not open ${shown} (${String(errorCode).trim()})`);
    return shown;
  }

  /** Waits (bounded) until the document has loaded, so the snapshot sees the result of an action. */
  async settle(): Promise<void> {
    await this.browser
      .waitUntil(
        async () => String(await this.browser.execute(() => (globalThis as any).document.readyState)) === "complete",
        {
          timeout: SETTLE_TIMEOUT_MS,
          interval: 50,
        },
      )
      .catch(() => {});
  }

  async snapshot(): Promise<RawSnapshot> {
    await this.settle();
    const snapshot = (await this.browser.execute(
      collectPageSnapshot,
      MAX_ELEMENTS,
      MAX_TEXT,
    )) as unknown as RawSnapshot;
    return { ...snapshot, url: withoutCredentials(snapshot.url) };
  }

  /**
   * The page's whole visible text, at most MAX_FULL_TEXT characters (cut in the page, so no more
   * crosses the wire): a check's quote is grounded in it, as the snapshot's text stops at MAX_TEXT.
   */
  async fullText(): Promise<string> {
    const text = await this.browser.execute(
      (max: number) => String((globalThis as any).document.body?.innerText ?? "").slice(0, max),
      MAX_FULL_TEXT,
    );
    return String(text);
  }

  private async element(index: unknown) {
    const element = await this.browser.$(`[data-obs-index="${Number(index)}"]`);
    if (!(await element.isExisting())) throw new ActionError(`there is no element [${index}] in the latest snapshot`);
    return element;
  }

  /**
   * Performs one action tool; returns what happened, in words, as evidence. `element` names the
   * element the call aims at as the snapshot described it (`button "Checkout"`), so the evidence
   * says what was clicked rather than its number; without it the number is used.
   */
  async perform(tool: string, args: Record<string, unknown>, element: string | null = null): Promise<string> {
    const named = element ?? `[${String(args.index)}]`;
    try {
      switch (tool) {
        case "navigate": {
          // The model opens web pages only: a file:// page (or any other scheme the browser
          // reads locally) would put this machine's files into its snapshot, and so into the
          // model's requests and the reports.
          const target = resolveUrl(String(args.url), this.baseUrl);
          const scheme = new URL(target).protocol;
          if (scheme !== "http:" && scheme !== "https:") {
            throw new ActionError(`navigate opens only http and https URLs, not ${scheme} ones`);
          }
          return `opened ${await this.goto(target)}`;
        }
        case "click": {
          const element = await this.element(args.index);
          await element.scrollIntoView().catch(() => {});
          await element.click();
          return `clicked ${named}`;
        }
        case "type": {
          const element = await this.element(args.index);
          if (args.clear === false) await element.addValue(String(args.text));
          else await element.setValue(String(args.text));
          return `typed ${JSON.stringify(args.text)} into ${named}`;
        }
        case "select": {
          const element = await this.element(args.index);
          const option = String(args.option);
          await element.selectByVisibleText(option).catch(() => element.selectByAttribute("value", option));
          return `selected ${JSON.stringify(option)} in ${named}`;
        }
        case "press": {
          const name = String(args.key);
          const key = this.keys[name.toLowerCase()] ?? (name.length === 1 ? name : undefined);
          if (key === undefined) throw new ActionError(`unknown key "${name}"; use e.g. Enter, Tab, Escape, ArrowDown`);
          await this.browser.keys([key]);
          return `pressed ${name}`;
        }
        case "scroll": {
          if (args.index !== undefined) {
            await (await this.element(args.index)).scrollIntoView();
            return `scrolled ${named} into view`;
          }
          const dy = args.direction === "up" ? -SCROLL_PIXELS : SCROLL_PIXELS;
          await this.browser.execute((pixels: number) => (globalThis as any).scrollBy(0, pixels), dy);
          return `scrolled ${args.direction === "up" ? "up" : "down"}`;
        }
        case "wait": {
          const ms = Math.min(Math.max(Number(args.ms ?? 1000), 0), MAX_WAIT_MS);
          if (typeof args.text === "string" && args.text !== "") {
            const text = args.text;
            const appeared = await this.browser
              .waitUntil(
                async () =>
                  String(await this.browser.execute(() => (globalThis as any).document.body?.innerText ?? "")).includes(
                    text,
                  ),
                { timeout: args.ms === undefined ? MAX_WAIT_MS : ms, interval: 100 },
              )
              .then(
                () => true,
                () => false,
              );
            return appeared ? `${JSON.stringify(text)} appeared` : `${JSON.stringify(text)} did not appear`;
          }
          await this.browser.pause(ms);
          return `waited ${ms} ms`;
        }
        default:
          throw new ActionError(`unknown tool "${tool}"`);
      }
    } catch (error) {
      if (error instanceof ActionError) throw error;
      throw new ActionError(`${tool} failed: ${(error as Error).message.split("\n")[0]}`);
    }
  }

  async screenshot(path: string): Promise<void> {
    await this.browser.saveScreenshot(path);
  }

  /** The viewport as a base64 PNG for --vision, typed text in fields hidden (vision-screenshot.ts). */
  async screenshotData(): Promise<string> {
    return maskedScreenshot(this.browser);
  }
}

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { BrowserPage } from "../../client/checks/browser/browser-page.js";
import { type BrowserSession, startBrowser } from "../../client/checks/browser/browser-session.js";
import { locateChromium } from "../../client/checks/browser/engines.js";
import { TOOL_SCREENSHOT_TEXT } from "../../client/checks/providers/openai-provider.js";
import { packagePath } from "../../shared/package-root.js";
import { CLEAN_ENV } from "../helpers/mock-checks.js";
import { modelImitation } from "../helpers/model-imitations.js";
import { runObs } from "../helpers/obs-cli.js";
import { decodePng, sameRegion } from "../helpers/png-pixels.js";
import { serveFolder } from "../helpers/static-site.js";
import { tempDir } from "../helpers/temp-dir.js";

const SITE = packagePath("test", "fixtures", "checks", "site");
const ARTIFACTS = packagePath("artifacts", "checks");
const VIEWPORT = { width: 800, height: 600 };

interface WireMessage {
  role: string;
  content: string | { type: string; text?: string; image_url?: { url: string } }[] | null;
}

/** The images a request carries, as PNG bytes. */
function imagesOf(messages: WireMessage[]): Buffer[] {
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content
          .filter((part) => part.type === "image_url")
          .map((part) => {
            const url = part.image_url?.url ?? "";
            expect(url.startsWith("data:image/png;base64,")).to.equal(true);
            return Buffer.from(url.slice("data:image/png;base64,".length), "base64");
          })
      : [],
  );
}

/** A PNG's size from its IHDR chunk; throws on anything that is not a PNG. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect([...png.subarray(0, 8)]).to.deep.equal([137, 80, 78, 71, 13, 10, 26, 10]);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

const SPEC = `import { test } from "obs/test";

test("types a name", async ({ agent }) => {
  await agent.goto("/login.html");
  await agent.act("type ada into the username field");
});
`;

describe("--vision: screenshots to the model (real Chromium, imitations of OpenAI's and Anthropic's APIs)", function () {
  this.timeout(120_000);
  let site: Awaited<ReturnType<typeof serveFolder>>;
  let project: ReturnType<typeof tempDir>;

  before(async () => {
    site = await serveFolder(SITE);
  });
  after(async () => {
    await site.close();
  });
  beforeEach(() => {
    project = tempDir("obs-vision-");
    mkdirSync(join(project.path, "tests"));
    writeFileSync(join(project.path, "tests", "name.obs.ts"), SPEC);
  });
  afterEach(() => project.cleanup());

  const SCRIPT = [
    { name: "type", arguments: { index: 1, text: "ada" } },
    { name: "done", arguments: { evidence: "typed ada" } },
  ];
  /** `obs test` with the provider pointed at a local imitation of its API; the requests it received. */
  const run = async (extra: string[], protocol: "openai" | "anthropic" = "openai") => {
    const model = await modelImitation(protocol, SCRIPT);
    const env =
      protocol === "openai"
        ? { OPENAI_BASE_URL: model.url }
        : { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: "sk-ant-test" };
    try {
      const result = await runObs(
        [
          "test",
          "tests/name.obs.ts",
          "--base-url",
          site.url,
          "--provider",
          protocol,
          "--viewport",
          "800x600",
          // Every run asks the model: a passing run's actions would otherwise be replayed from the cache.
          "--cache",
          "off",
          ...extra,
        ],
        { cwd: project.path, env: { ...CLEAN_ENV, ...env }, timeoutMs: 100_000 },
      );
      expect(result.code, result.stderr + result.stdout).to.equal(0);
      return model.requests as { messages: WireMessage[] }[];
    } finally {
      await model.close();
    }
  };

  it("sends a PNG of the page with the newest snapshot only: in the first user message, then after the tool result", async () => {
    const requests = await run(["--vision"]);
    expect(requests).to.have.length(2);
    const [first, second] = requests as [{ messages: WireMessage[] }, { messages: WireMessage[] }];

    // First turn: the instruction's user message holds the text snapshot and the screenshot.
    expect(first.messages.map((message) => message.role)).to.deep.equal(["system", "user"]);
    const opening = first.messages[1]?.content as { type: string; text?: string }[];
    expect(opening.map((part) => part.type)).to.deep.equal(["text", "image_url"]);
    expect(opening[0]?.text).to.include("Username");

    // Second turn: the first message is text again; the tool result is text, its screenshot follows.
    expect(second.messages.map((message) => message.role)).to.deep.equal([
      "system",
      "user",
      "assistant",
      "tool",
      "user",
    ]);
    expect(typeof second.messages[1]?.content).to.equal("string");
    expect(second.messages[3]?.content).to.be.a("string").and.include("Username");
    const after = second.messages[4]?.content as { type: string; text?: string }[];
    expect(after.map((part) => part.type)).to.deep.equal(["text", "image_url"]);
    expect(after[0]?.text).to.equal(TOOL_SCREENSHOT_TEXT);

    const [before] = imagesOf(first.messages);
    const images = imagesOf(second.messages);
    expect(images).to.have.length(1);
    // Real screenshots of the viewport, and the page changed between them.
    expect(pngSize(before as Buffer)).to.deep.equal(VIEWPORT);
    expect(pngSize(images[0] as Buffer)).to.deep.equal(VIEWPORT);
    expect((images[0] as Buffer).equals(before as Buffer)).to.equal(false);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, "vision-first-turn.png"), before as Buffer);
    writeFileSync(join(ARTIFACTS, "vision-after-typing.png"), images[0] as Buffer);
  });

  it("sends Anthropic an image block with the first snapshot, then inside the latest tool_result", async () => {
    type Block = {
      type: string;
      text?: string;
      content?: string | Block[];
      source?: { type: string; media_type: string; data: string };
    };
    const requests = (await run(["--vision"], "anthropic")) as unknown as {
      messages: { role: string; content: Block[] }[];
    }[];
    expect(requests).to.have.length(2);
    const [first, second] = requests as [(typeof requests)[0], (typeof requests)[0]];
    expect(first.messages).to.have.length(1);
    expect(first.messages[0]?.content.map((block) => block.type)).to.deep.equal(["text", "image"]);
    expect(second.messages.map((message) => message.role)).to.deep.equal(["user", "assistant", "user"]);
    expect(second.messages[0]?.content.map((block) => block.type)).to.deep.equal(["text"]);
    const [result] = second.messages[2]?.content ?? [];
    expect(result?.type).to.equal("tool_result");
    const parts = result?.content as Block[];
    expect(parts.map((block) => block.type)).to.deep.equal(["text", "image"]);
    expect(parts[0]?.text).to.include("Username");
    for (const image of [first.messages[0]?.content[1], parts[1]]) {
      expect(image?.source).to.deep.include({ type: "base64", media_type: "image/png" });
      expect(pngSize(Buffer.from(image?.source?.data ?? "", "base64"))).to.deep.equal(VIEWPORT);
    }
    expect(JSON.stringify(second).match(/"type":"image"/g)).to.have.length(1);
  });

  it("sends text only without --vision, to either API", async () => {
    const openAi = await run([]);
    expect(openAi).to.have.length(2);
    for (const request of openAi) {
      expect(imagesOf(request.messages)).to.deep.equal([]);
      expect(request.messages.every((message) => !Array.isArray(message.content))).to.equal(true);
    }
    const anthropic = await run([], "anthropic");
    expect(anthropic).to.have.length(2);
    for (const request of anthropic) expect(JSON.stringify(request)).not.to.match(/"type":"image"|base64/);
  });

  describe("the screenshot itself", () => {
    let session: BrowserSession;
    let page: BrowserPage;
    before(async () => {
      session = await startBrowser({
        launch: { engine: "engine_a", ...locateChromium(process.env) },
        headed: false,
        viewport: VIEWPORT,
      });
      page = new BrowserPage(session.browser, site.url, session.keys);
    });
    after(async () => {
      await session?.close();
    });

    /**
     * Screenshots for the model and the browser's own, with the fields of `path` empty and then
     * filled, and the fields' rectangles.
     */
    async function screenshots(path: string) {
      await page.goto(path);
      const fill = (value: string) =>
        session.browser.execute((text: string) => {
          for (const field of (globalThis as any).document.querySelectorAll("input:not([type=submit]), textarea")) {
            field.value = text;
          }
        }, value);
      const shoot = async () => ({
        masked: Buffer.from(await page.screenshotData(), "base64"),
        plain: Buffer.from(await session.browser.takeScreenshot(), "base64"),
      });
      await fill("");
      const empty = await shoot();
      await fill("sk-live-4f9a8b7c6d5e");
      const typed = await shoot();
      const fields = (await session.browser.execute(() =>
        [...(globalThis as any).document.querySelectorAll("input:not([type=submit]), textarea")].map((field: any) => {
          const { x, y, width, height } = field.getBoundingClientRect();
          return { rect: { x, y, width, height }, style: field.getAttribute("style") };
        }),
      )) as { rect: { x: number; y: number; width: number; height: number }; style: string | null }[];
      const scale = Number(await session.browser.execute(() => (globalThis as any).devicePixelRatio));
      return { empty, typed, fields, scale };
    }

    /** Each field's pixels: the same empty and typed (true) or not (false). */
    const fieldsUnchanged = (before: Buffer, after: Buffer, shot: Awaited<ReturnType<typeof screenshots>>) =>
      shot.fields.map(({ rect }) => sameRegion(decodePng(before), decodePng(after), rect, shot.scale));

    it("hides what is typed into fields, and leaves the page as it was", async () => {
      const shot = await screenshots("/login.html");
      // The browser's own screenshot shows the typed text (the password as dots); the one for the model does not.
      expect(fieldsUnchanged(shot.empty.plain, shot.typed.plain, shot)).to.deep.equal([false, false]);
      expect(fieldsUnchanged(shot.empty.masked, shot.typed.masked, shot)).to.deep.equal([true, true]);
      expect(shot.fields.map((field) => field.style)).to.deep.equal([null, null]);
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(join(ARTIFACTS, "vision-field-typed.png"), shot.typed.masked);
      writeFileSync(join(ARTIFACTS, "vision-field-typed-plain.png"), shot.typed.plain);
    });

    it("hides typed text on a page whose Content-Security-Policy refuses inline styles", async () => {
      const shot = await screenshots("/strict-form.html");
      expect(fieldsUnchanged(shot.empty.plain, shot.typed.plain, shot)).to.deep.equal([false, false]);
      expect(fieldsUnchanged(shot.empty.masked, shot.typed.masked, shot)).to.deep.equal([true, true]);
      expect(shot.fields.map((field) => field.style)).to.deep.equal([null, null]);
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(join(ARTIFACTS, "vision-strict-form-typed.png"), shot.typed.masked);
    });
  });
});

/**
 * bench/checks: the browser runner's own costs, without any model time.
 *
 *   npm run bench:checks      (BENCH_STARTS=5, BENCH_STEPS=40 by default)
 *
 * - Browser start: wall time to a ready Chromium session (webdriverio + chromedriver), then close.
 * - Step overhead: the agent loop driving the todo fixture page with a provider that answers
 *   instantly; per step, the step's wall time minus its model time (snapshot, action, page
 *   settle, stall check), without and with --capture-screenshots.
 * Targets: browser start under 2 s; step overhead under 150 ms.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runInstruction, type StepRecord } from "../client/checks/agent/agent-loop.js";
import { BrowserPage } from "../client/checks/browser/browser-page.js";
import { startBrowser } from "../client/checks/browser/browser-session.js";
import { locateChromium } from "../client/checks/browser/engines.js";
import type { ModelProvider, ModelRequest, ModelResponse } from "../client/checks/providers/model-provider.js";
import { packagePath } from "../shared/package-root.js";
import { serveFolder } from "../test/helpers/static-site.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { percentile, round } from "./measure.js";

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const STEPS = Number(process.env.BENCH_STEPS ?? 40);

/** Types a new todo, then presses Enter, again and again: every step changes the page. */
class InstantProvider implements ModelProvider {
  readonly name = "instant";
  readonly model = "none";
  async complete(request: ModelRequest): Promise<ModelResponse> {
    const turn = request.messages.filter((message) => message.role === "assistant").length;
    const input = request.context.elements.find((element) => element.label === "New todo")?.index ?? 1;
    const call =
      turn >= STEPS
        ? { name: "done", arguments: { evidence: "enough" } }
        : turn % 2 === 0
          ? { name: "type", arguments: { index: input, text: `item ${turn}` } }
          : { name: "press", arguments: { key: "Enter" } };
    return { text: null, toolCalls: [{ id: `i${turn}`, ...call }], usage: { inputTokens: 0, outputTokens: 0 } };
  }
}

function describe(label: string, values: number[]): string {
  return `${label.padEnd(34)} median ${round(percentile(values, 50)).toFixed(1).padStart(7)} ms  p90 ${round(percentile(values, 90)).toFixed(1).padStart(7)} ms  (n=${values.length})`;
}

async function stepOverheads(
  site: string,
  screenshots: string | null,
  shotTimes: number[] = [],
): Promise<{ overall: number[]; byTool: Map<string, number[]> }> {
  const binaries = locateChromium(process.env);
  const session = await startBrowser({ launch: { engine: "engine_a", ...binaries }, headed: false, viewport: null });
  try {
    const page = new BrowserPage(session.browser, site, session.keys);
    await page.goto("/todo.html");
    const steps: StepRecord[] = [];
    await runInstruction("act", "add many todos", {
      test: "bench",
      provider: new InstantProvider(),
      page,
      budget: { used: 0, max: null },
      deadline: Date.now() + 600_000,
      usage: { inputTokens: 0, outputTokens: 0 },
      onStep: async (step) => {
        if (screenshots && step.tool !== "done") {
          const shotStarted = performance.now();
          await page.screenshot(join(screenshots, `step-${steps.length}.png`));
          shotTimes.push(performance.now() - shotStarted);
        }
        steps.push(step);
      },
    });
    const actions = steps.filter((step) => step.tool !== "done");
    const byTool = new Map<string, number[]>();
    for (const step of actions)
      byTool.set(step.tool, [...(byTool.get(step.tool) ?? []), step.durationMs - step.modelMs]);
    return { overall: actions.map((step) => step.durationMs - step.modelMs), byTool };
  } finally {
    await session.close();
  }
}

async function main(): Promise<void> {
  const site = await serveFolder(packagePath("test", "fixtures", "checks", "site"));
  const shots = tempDir("obs-bench-checks-");
  try {
    const binaries = locateChromium(process.env);
    const starts: number[] = [];
    for (let i = 0; i < STARTS + 1; i++) {
      const started = performance.now();
      const session = await startBrowser({
        launch: { engine: "engine_a", ...binaries },
        headed: false,
        viewport: null,
      });
      const ms = performance.now() - started;
      await session.close();
      if (i > 0) starts.push(ms); // the first start warms the page cache
    }
    const plain = await stepOverheads(site.url, null);
    mkdirSync(shots.path, { recursive: true });
    const shotTimes: number[] = [];
    await stepOverheads(site.url, shots.path, shotTimes);
    console.log(`bench/checks: ${STARTS} browser starts, ${STEPS} agent steps per run, model time excluded`);
    console.log(
      `${describe("browser start (to a ready session)", starts)}  ${percentile(starts, 50) < 2000 ? "meets" : "MISSES"} <2000 ms`,
    );
    console.log(
      `${describe("step overhead", plain.overall)}  ${percentile(plain.overall, 50) < 150 ? "meets" : "MISSES"} <150 ms`,
    );
    for (const [tool, values] of plain.byTool) console.log(describe(`  ${tool} steps`, values));
    console.log(describe("screenshot (--capture-screenshots)", shotTimes));
  } finally {
    shots.cleanup();
    await site.close();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});

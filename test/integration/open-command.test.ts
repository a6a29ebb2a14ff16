import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { postJson } from "../helpers/http.js";
import { freePort, runObs } from "../helpers/obs-cli.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";
import { tempDir } from "../helpers/temp-dir.js";

const validateDocument = cliDocumentValidator();

describe("obs open: the web UI in the browser, or its URL (real obsd)", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;
  let dir: ReturnType<typeof tempDir>;
  const traceId = hexId(37, 16);
  /** Where the stand-in opener writes its argument count, then each argument on a line. */
  let received: string;
  let opener: string;
  let failingOpener: string;

  /** A desktop session (DISPLAY set, no CI) whose browser opener is the test's script. */
  const desktop = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    OBS_MONITOR_URL: obsd.url,
    OBS_BROWSER_OPENER: opener,
    DISPLAY: ":0",
    WAYLAND_DISPLAY: undefined,
    CI: undefined,
    ...more,
  });
  const openedWith = (): string[] | null =>
    existsSync(received) ? readFileSync(received, "utf8").trimEnd().split("\n") : null;

  before(async () => {
    dir = tempDir("obs-open-");
    received = join(dir.path, "received");
    opener = join(dir.path, "opener.sh");
    writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$#" "$@" > '${received}'\n`);
    chmodSync(opener, 0o755);
    failingOpener = join(dir.path, "failing.sh");
    writeFileSync(failingOpener, "#!/bin/sh\nexit 3\n");
    chmodSync(failingOpener, 0o755);
    obsd = await startCollectorProcess();
    const now = BigInt(Date.now()) * 1_000_000n;
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest("shop", [{ traceId, spanId: hexId(1, 8), name: "GET /cart", startNs: now }]),
    );
  });
  beforeEach(() => rmSync(received, { force: true }));
  after(async () => {
    await obsd?.stop();
    dir?.cleanup();
  });

  it("opens the UI's home with the browser opener, the URL its one argument, and prints the URL", async () => {
    const result = await runObs(["open"], { env: desktop() });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal(`${obsd.url}/\n`);
    expect(openedWith()).to.deep.equal(["1", `${obsd.url}/`]);
  });

  it("opens a trace's waterfall, with the id as given lowercased", async () => {
    const result = await runObs(["open", traceId.toUpperCase()], { env: desktop() });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal(`${obsd.url}/ui/traces/${traceId}\n`);
    expect(openedWith()).to.deep.equal(["1", `${obsd.url}/ui/traces/${traceId}`]);
  });

  it("only prints the URL with --print, without a display, and in CI", async () => {
    for (const [args, env] of [
      [["open", traceId, "--print"], desktop()],
      [["open", traceId], desktop({ DISPLAY: undefined })],
      [["open", traceId], desktop({ CI: "true" })],
    ] as const) {
      const printed = await runObs([...args], { env });
      expect(printed.code, printed.stderr).to.equal(0);
      expect(printed.stdout).to.equal(`${obsd.url}/ui/traces/${traceId}\n`);
      expect(printed.stderr).to.equal("");
      expect(openedWith(), `${args} ${JSON.stringify(env)}`).to.equal(null);
    }
  });

  it("prints the URL and exits 0 when the opener is missing or fails, saying no browser opened", async () => {
    for (const program of [join(dir.path, "no-such-opener"), failingOpener]) {
      const result = await runObs(["open"], { env: desktop({ OBS_BROWSER_OPENER: program }) });
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.equal(`${obsd.url}/\n`);
      expect(result.stderr).to.match(
        new RegExp(`^obs: no browser opened: ${program} (could not run|failed \\(exit 3\\))`),
      );
    }
  });

  it("writes {url} in one obs.cli/v1 document with --json", async () => {
    const result = await runObs(["open", traceId, "--json", "--print"], { env: desktop() });
    expect(result.code, result.stderr).to.equal(0);
    const document = JSON.parse(result.stdout);
    expect(validateDocument(document), JSON.stringify(validateDocument.errors)).to.equal(true);
    expect(document).to.include({ command: "open" });
    expect(document.data).to.deep.equal({ url: `${obsd.url}/ui/traces/${traceId}` });
  });

  it("checks the trace first: exit 4 for one the collector lacks, 2 for a malformed id, 3 with no collector", async () => {
    const missing = await runObs(["open", hexId(999, 16)], { env: desktop() });
    expect(missing.code).to.equal(4);
    const asTrace = await runObs(["trace", hexId(999, 16)], { env: desktop() });
    expect(missing.stderr).to.equal(asTrace.stderr);
    expect(missing.stdout).to.equal("");
    const malformed = await runObs(["open", "nothex"], { env: desktop() });
    expect(malformed.code).to.equal(2);
    expect(malformed.stderr).to.include('"nothex" is not a trace id (32 hex characters)');
    const down = await runObs(["open", "--json"], {
      env: desktop({ OBS_MONITOR_URL: `http://127.0.0.1:${await freePort()}` }),
    });
    expect(down.code).to.equal(3);
    expect(JSON.parse(down.stdout).error.code).to.equal("collector_unavailable");
    expect(openedWith()).to.equal(null);
  });

  it("says in --help how it opens the browser and when it only prints", async () => {
    const help = await runObs(["open", "--help"]);
    expect(help.code).to.equal(0);
    for (const text of ["xdg-open", "OBS_BROWSER_OPENER", "--print", "CI", "DISPLAY"])
      expect(help.stdout).to.include(text);
  });
});

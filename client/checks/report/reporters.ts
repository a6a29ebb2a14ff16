/** The reporters a run uses: each implements the small Reporter interface, one job each. */
import { mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { appendPrivateFile } from "../../../shared/private-append.js";
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import { safeText } from "../../render/table.js";
import type { RunSettings } from "../config/run-settings.js";
import { artifactFolder, writeArtifact } from "./artifact-files.js";
import { summaryLines, testLine } from "./console-summary.js";
import { HTML_REPORT, htmlReport } from "./html-report.js";
import { jsonReport } from "./json-report.js";
import { junitXml } from "./junit-report.js";
import { actionLine, frameLine, pageErrorLine, testFinishLine, testStartLine } from "./progress-line.js";
import type { Reporter, RunReport } from "./run-result.js";

export const JSON_REPORT = "report.json";
export const JUNIT_REPORT = "junit.xml";

/** Writes report files at the end and remembers their paths for the console summary. */
class FileReporter implements Reporter {
  constructor(
    private readonly reportDir: string,
    private readonly path: string,
    private readonly render: (report: RunReport) => string,
    private readonly written: string[],
    private readonly cwd: string,
  ) {}
  onRunFinish(report: RunReport): void {
    artifactFolder(this.reportDir, dirname(this.path));
    writeArtifact(this.path, this.render(report));
    this.written.push(relative(this.cwd, this.path) || this.path);
  }
}

class BasicReporter implements Reporter {
  constructor(
    private readonly written: string[],
    /** The report directory as shown to the reader (relative to the working folder). */
    private readonly reportDir: string,
  ) {}
  onRunStart(info: { tests: number; files: number; engine: string; provider: string; model: string }): void {
    process.stdout.write(
      `running ${info.tests} tests from ${info.files} files on ${info.engine} with ${info.provider} (${info.model})\n`,
    );
  }
  onTestFinish(result: Parameters<NonNullable<Reporter["onTestFinish"]>>[0]): void {
    process.stdout.write(`${testLine(result, this.reportDir)}\n`);
  }
  onRunFinish(report: RunReport): void {
    process.stdout.write(`${summaryLines(report, this.written)}\n`);
  }
}

/** `--progress-file`: appends one NDJSON line per event, as it happens. */
class ProgressReporter implements Reporter {
  constructor(private readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    // Checked before the run starts: a file that cannot be ours stops it with its reason.
    try {
      appendPrivateFile(path, "");
    } catch (error) {
      throw new LifecycleError("invalid_argument", `--progress-file: ${(error as Error).message}`);
    }
  }
  private append(line: object): void {
    appendPrivateFile(this.path, `${JSON.stringify(line)}\n`);
  }
  onTestStart(...[test, attempt]: Parameters<NonNullable<Reporter["onTestStart"]>>): void {
    this.append(testStartLine(test, new Date(), attempt));
  }
  onStep(...[test, step]: Parameters<NonNullable<Reporter["onStep"]>>): void {
    this.append(actionLine(test, step, new Date()));
  }
  onFrame(...[test, path]: Parameters<NonNullable<Reporter["onFrame"]>>): void {
    this.append(frameLine(test, path, new Date()));
  }
  onPageError(...[test, error]: Parameters<NonNullable<Reporter["onPageError"]>>): void {
    this.append(pageErrorLine(test, error, new Date()));
  }
  onTestFinish(result: Parameters<NonNullable<Reporter["onTestFinish"]>>[0]): void {
    this.append(testFinishLine(result, new Date()));
  }
}

/** `--verbose`: agent events on stderr. */
class VerboseReporter implements Reporter {
  onTestStart(...[test, attempt]: Parameters<NonNullable<Reporter["onTestStart"]>>): void {
    process.stderr.write(`[obs] start ${safeText(test.id)}${attempt > 1 ? ` (retry ${attempt - 1})` : ""}\n`);
  }
  onStep(...[test, step]: Parameters<NonNullable<Reporter["onStep"]>>): void {
    const said = step.text ? ` (model: ${safeText(step.text)})` : "";
    process.stderr.write(
      `[obs] ${safeText(test.name)} step ${step.index} ${step.kind} ${safeText(step.tool)} ${safeText(JSON.stringify(step.args))} -> ${step.ok ? "" : "error: "}${safeText(step.evidence)}${said} [${Math.round(step.durationMs)} ms, model ${Math.round(step.modelMs)} ms]\n`,
    );
  }
  onPageError(...[test, error]: Parameters<NonNullable<Reporter["onPageError"]>>): void {
    process.stderr.write(`[obs] ${safeText(test.name)} page error, ${error.kind}: ${safeText(error.message)}\n`);
  }
  onTestFinish(result: Parameters<NonNullable<Reporter["onTestFinish"]>>[0]): void {
    process.stderr.write(`[obs] ${result.flaky ? "flaky" : result.status} ${safeText(result.id)}\n`);
  }
}

export function reportersFor(settings: RunSettings): Reporter[] {
  const written: string[] = [];
  const reporters: Reporter[] = [];
  if (settings.reporters.includes("json")) {
    reporters.push(
      new FileReporter(settings.reportDir, join(settings.reportDir, JSON_REPORT), jsonReport, written, settings.cwd),
    );
  }
  if (settings.reporters.includes("junit")) {
    reporters.push(
      new FileReporter(settings.reportDir, join(settings.reportDir, JUNIT_REPORT), junitXml, written, settings.cwd),
    );
  }
  if (settings.reporters.includes("html")) {
    reporters.push(
      new FileReporter(settings.reportDir, join(settings.reportDir, HTML_REPORT), htmlReport, written, settings.cwd),
    );
  }
  if (settings.progressFile) reporters.push(new ProgressReporter(settings.progressFile));
  if (settings.verbose) reporters.push(new VerboseReporter());
  // The console summary goes last so it can list the files the others wrote.
  if (settings.reporters.includes("basic"))
    reporters.push(new BasicReporter(written, relative(settings.cwd, settings.reportDir)));
  return reporters;
}

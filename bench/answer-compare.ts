/**
 * The answer files of bench/query-answers.ts: writing one, its index line, and comparing two
 * out folders (the baseline and this run) by their `answers.txt`.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createTwoFilesPatch } from "diff";

export interface IndexLine {
  name: string;
  status: number;
  sha256: string;
  bytes: number;
}

/** Groups whose changes are reported but do not fail the comparison. */
const ALLOWED_TO_CHANGE = ["openapi/"];
/** How many differing answers get a unified diff. */
const DIFFS_SHOWN = 3;

/** Writes one answer (`name` like `http/traces`) and returns its index line. */
export function writeAnswer(out: string, name: string, status: number, content: Buffer): IndexLine {
  const path = join(out, `${name}.txt`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return { name, status, sha256: createHash("sha256").update(content).digest("hex"), bytes: content.length };
}

export function writeIndex(out: string, lines: IndexLine[]): void {
  const text = lines.map((l) => `${l.name} ${l.status} ${l.sha256} ${l.bytes}\n`).join("");
  writeFileSync(join(out, "answers.txt"), text);
}

function readIndex(out: string): Map<string, IndexLine> {
  const path = join(out, "answers.txt");
  if (!existsSync(path)) throw new Error(`no ${path}: is ${out} an out folder of bench/query-answers?`);
  const lines = new Map<string, IndexLine>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line === "") continue;
    const [name, status, sha256, bytes] = line.split(" ") as [string, string, string, string];
    lines.set(name, { name, status: Number(status), sha256, bytes: Number(bytes) });
  }
  return lines;
}

function raw(out: string, name: string): string {
  return readFileSync(join(out, `${name}.txt`), "utf8");
}

/** HTTP answer files start with two lines (request, status) before the body. */
const HTTP_HEAD_LINES = 2;

/** An answer file for reading in a diff: an HTTP answer's JSON body pretty-printed, else as it is. */
function readable(out: string, name: string): string {
  const path = join(out, `${name}.txt`);
  if (!existsSync(path)) return "";
  const text = readFileSync(path, "utf8");
  if (name.startsWith("cli/")) return text;
  const lines = text.split("\n");
  const head = lines.slice(0, HTTP_HEAD_LINES).join("\n");
  try {
    const body = JSON.parse(lines.slice(HTTP_HEAD_LINES).join("\n")) as unknown;
    return `${head}\n${JSON.stringify(body, null, 2)}\n`;
  } catch {
    return text;
  }
}

function describe(name: string, before: IndexLine | undefined, after: IndexLine | undefined): string {
  if (!before) return `  ${name}: only in this run`;
  if (!after) return `  ${name}: only in the baseline`;
  const status = before.status === after.status ? `${after.status}` : `${before.status} -> ${after.status}`;
  return `  ${name}: status ${status}, ${before.bytes} -> ${after.bytes} bytes`;
}

/** Prints what differs between `baseline` and `current`; returns how many answers differ. */
export function compareAnswers(baseline: string, current: string): number {
  const before = readIndex(baseline);
  const after = readIndex(current);
  const names = [...new Set([...before.keys(), ...after.keys()])];
  const allowed = (name: string) => ALLOWED_TO_CHANGE.some((prefix) => name.startsWith(prefix));
  const differing = names.filter((name) => before.get(name)?.sha256 !== after.get(name)?.sha256);
  const failing = differing.filter((name) => !allowed(name));
  const changedAllowed = differing.filter(allowed);
  const counted = names.filter((name) => !allowed(name));

  if (failing.length > 0) console.log(`differ from ${baseline}:`);
  for (const name of failing) console.log(describe(name, before.get(name), after.get(name)));
  const inBoth = failing.filter((name) => before.has(name) && after.has(name));
  for (const name of inBoth.slice(0, DIFFS_SHOWN)) {
    let [was, is] = [readable(baseline, name), readable(current, name)];
    // Bodies equal once pretty-printed differ in their bytes only (spacing): show those.
    if (was === is) [was, is] = [raw(baseline, name), raw(current, name)];
    console.log(
      createTwoFilesPatch(`baseline/${name}`, `current/${name}`, was, is, undefined, undefined, { context: 3 }),
    );
  }
  for (const name of changedAllowed) {
    console.log(`${describe(name, before.get(name), after.get(name))} (allowed to change)`);
  }
  const allowedNames = names.filter(allowed);
  console.log(
    `${allowedNames.length} allowed to change (${allowedNames.join(", ")}): ${changedAllowed.length} changed`,
  );
  console.log(`${counted.length} answers, ${counted.length - failing.length} identical, ${failing.length} differ`);
  return failing.length;
}

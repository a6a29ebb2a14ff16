import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, posix, sep } from "node:path";

/**
 * The import graph of the TypeScript sources, read without compiling them, for the layering
 * test. Every way one module reaches another counts: static imports and re-exports, type-only
 * imports (they still tie a layer to another's types), dynamic import(), require() and
 * `new URL("./x.js", import.meta.url)` (how worker threads are started).
 */

export type ImportKind = "static" | "type" | "dynamic" | "url";

export interface ImportEdge {
  /** The importing file, relative to the root with forward slashes: "daemon/http/app.ts". */
  from: string;
  /** A source file relative to the root ("daemon/store/schema.ts"), else the bare specifier ("better-sqlite3"). */
  to: string;
  kind: ImportKind;
  line: number;
}

interface Token {
  type: "word" | "string" | "punct";
  text: string;
  line: number;
}

const WORD = /[A-Za-z0-9_$]/;
/** After these a `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORDS = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "instanceof",
  "new",
  "void",
  "yield",
  "await",
  "delete",
  "throw",
  "of",
]);

/**
 * Splits TypeScript source into words, string literals and punctuation, dropping comments,
 * template literals and regular expressions (an import specifier is always a plain string).
 */
export function tokens(source: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  /** Brace depth at which each open template literal's `${` began. */
  const templates: number[] = [];
  let braces = 0;
  const regexMayFollow = (): boolean => {
    const last = out[out.length - 1];
    if (!last) return true;
    if (last.type === "word") return REGEX_AFTER_WORDS.has(last.text);
    if (last.type === "string") return false;
    return !(last.text === ")" || last.text === "]" || last.text === "}");
  };
  const skipTemplate = (): void => {
    // At the character after "`" or after the "}" closing a "${...}": runs to the closing "`"
    // or into the next "${", whose expression is tokenised like any code.
    while (i < source.length) {
      const c = source[i];
      if (c === "\\") i += 2;
      else if (c === "`") {
        i++;
        return;
      } else if (c === "$" && source[i + 1] === "{") {
        i += 2;
        templates.push(braces);
        braces++;
        return;
      } else {
        if (c === "\n") line++;
        i++;
      }
    }
  };
  while (i < source.length) {
    const c = source[i] ?? "";
    const next = source[i + 1];
    if (c === "\n") {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? source.length : end + 2;
      for (let k = i; k < stop; k++) if (source[k] === "\n") line++;
      i = stop;
    } else if (c === '"' || c === "'") {
      let text = "";
      i++;
      while (i < source.length && source[i] !== c && source[i] !== "\n") {
        if (source[i] === "\\") {
          text += source[i + 1] ?? "";
          i += 2;
        } else text += source[i++];
      }
      i++;
      out.push({ type: "string", text, line });
    } else if (c === "`") {
      i++;
      skipTemplate();
      out.push({ type: "punct", text: "`", line });
    } else if (c === "/" && regexMayFollow()) {
      let inClass = false;
      i++;
      while (i < source.length && source[i] !== "\n") {
        const r = source[i];
        if (r === "\\") i++;
        else if (r === "[") inClass = true;
        else if (r === "]") inClass = false;
        else if (r === "/" && !inClass) break;
        i++;
      }
      i++;
      while (i < source.length && WORD.test(source[i] ?? "")) i++;
      out.push({ type: "punct", text: "/re/", line });
    } else if (WORD.test(c)) {
      let text = "";
      while (i < source.length && WORD.test(source[i] ?? "")) text += source[i++];
      out.push({ type: "word", text, line });
    } else {
      i++;
      if (c === "{") braces++;
      else if (c === "}") {
        braces--;
        if (templates.length > 0 && templates[templates.length - 1] === braces) {
          templates.pop();
          skipTemplate();
          out.push({ type: "punct", text: "`", line });
          continue;
        }
      }
      out.push({ type: "punct", text: c, line });
    }
  }
  return out;
}

/** The module specifiers a source names, with how and on which line. */
export function importsOf(source: string): { specifier: string; kind: ImportKind; line: number }[] {
  const list = tokens(source);
  const found: { specifier: string; kind: ImportKind; line: number }[] = [];
  const is = (k: number, type: Token["type"], text?: string) =>
    list[k]?.type === type && (text === undefined || list[k]?.text === text);
  // Whether the statement holding token k began with `import type` or `export type`.
  let statementTypeOnly = false;
  for (let k = 0; k < list.length; k++) {
    const token = list[k] as Token;
    if (token.type === "word" && (token.text === "import" || token.text === "export") && !is(k - 1, "punct", ".")) {
      if (is(k + 1, "word", "type") && !is(k + 2, "punct", "(")) statementTypeOnly = true;
      else if (!is(k + 1, "punct", "(")) statementTypeOnly = false;
    }
    const specifier = list[k + 1]?.text ?? "";
    if (token.type === "word" && token.text === "from" && is(k + 1, "string")) {
      found.push({ specifier, kind: statementTypeOnly ? "type" : "static", line: token.line });
    } else if (token.type === "word" && token.text === "import" && is(k + 1, "string") && !is(k - 1, "punct", ".")) {
      found.push({ specifier, kind: "static", line: token.line });
    } else if (
      token.type === "word" &&
      (token.text === "import" || token.text === "require") &&
      is(k + 1, "punct", "(") &&
      is(k + 2, "string")
    ) {
      const typeQuery = is(k - 1, "word", "typeof");
      found.push({ specifier: list[k + 2]?.text ?? "", kind: typeQuery ? "type" : "dynamic", line: token.line });
    } else if (
      token.type === "word" &&
      token.text === "URL" &&
      is(k - 1, "word", "new") &&
      is(k + 1, "punct", "(") &&
      is(k + 2, "string") &&
      is(k + 3, "punct", ",") &&
      is(k + 4, "word", "import") &&
      is(k + 6, "word", "meta")
    ) {
      found.push({ specifier: list[k + 2]?.text ?? "", kind: "url", line: token.line });
    }
  }
  return found;
}

/** `specifier` as imported from `from` (root-relative): a source path if it is one, else the specifier. */
export function resolveSpecifier(root: string, from: string, specifier: string): string {
  if (!specifier.startsWith(".")) return specifier;
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [
    target.replace(/\.js$/, ".ts"),
    target.replace(/\.js$/, ".tsx"),
    target,
    `${target}.ts`,
    `${target}.tsx`,
    `${target}/index.ts`,
  ];
  for (const candidate of candidates) {
    if (/\.tsx?$/.test(candidate) && existsSync(join(root, candidate))) return candidate;
  }
  return target;
}

/** The TypeScript sources (.ts and the web UI's .tsx; not declaration files) under `folders`, root-relative with forward slashes. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  return folders
    .filter((folder) => existsSync(join(root, folder)))
    .flatMap((folder) =>
      readdirSync(join(root, folder), { recursive: true })
        .map((name) => join(folder, String(name)))
        .filter((path) => /\.tsx?$/.test(path) && !path.endsWith(".d.ts")),
    )
    .map((path) => path.split(sep).join("/"))
    .sort();
}

/** Every import of every source under `folders` of `root`. */
export function importGraph(root: string, folders: readonly string[]): ImportEdge[] {
  return sourceFiles(root, folders).flatMap((from) =>
    importsOf(readFileSync(join(root, from), "utf8")).map(({ specifier, kind, line }) => ({
      from,
      to: resolveSpecifier(root, from, specifier),
      kind,
      line,
    })),
  );
}

/** A layering rule: no file matching `from` may import a module matching `to`. */
export interface LayerRule {
  name: string;
  /** Why the layers are kept apart, shown with every violation. */
  reason: string;
  from: RegExp;
  to: RegExp | ((target: string) => boolean);
}

/**
 * One import a rule lets through, named exactly (file to file). "design": the exception is
 * the design (the CLI starting obsd in its own process); "until-fixed": code that breaks the
 * rule today, to be removed from the list when the code is changed.
 */
export interface Allowance {
  rule: string;
  from: string;
  to: string;
  kind: "design" | "until-fixed";
  /** Why it is there and, for "until-fixed", what removes it. */
  reason: string;
}

export interface LayeringReport {
  violations: { rule: string; edge: ImportEdge; reason: string }[];
  /** Allowances that match no import any more: remove or update them, so each stays exact. */
  unused: Allowance[];
}

/** The edges that break a rule and are not allowed, and the allowances nothing needs. */
export function checkLayering(
  edges: readonly ImportEdge[],
  rules: readonly LayerRule[],
  allowances: readonly Allowance[],
): LayeringReport {
  const used = new Set<Allowance>();
  const violations: LayeringReport["violations"] = [];
  for (const edge of edges) {
    for (const rule of rules) {
      const target = typeof rule.to === "function" ? rule.to(edge.to) : rule.to.test(edge.to);
      if (!rule.from.test(edge.from) || !target) continue;
      const allowance = allowances.find((a) => a.rule === rule.name && a.from === edge.from && a.to === edge.to);
      if (allowance) used.add(allowance);
      else violations.push({ rule: rule.name, edge, reason: rule.reason });
    }
  }
  return { violations, unused: allowances.filter((allowance) => !used.has(allowance)) };
}

/** One line per violation, for a failing test's message. */
export function describeViolations(report: LayeringReport): string {
  return report.violations
    .map(
      ({ rule, edge, reason }) =>
        `${edge.from}:${edge.line} imports ${edge.to} (${edge.kind}): breaks "${rule}": ${reason}`,
    )
    .join("\n");
}

/**
 * `JSON.stringify(value, null, 2)`, without recursion. V8's own serializer recurses and gives
 * up ("Maximum call stack size exceeded") on a span tree a few thousand levels deep, which a
 * trace can hold (`obs trace --json`); this writer keeps its place on an explicit stack, so
 * depth costs memory, not stack. Output is identical to JSON.stringify's for documents up to
 * MAX_INDENTED_DEPTH levels deep; deeper levels are written compact (as JSON.stringify without
 * indentation), because indenting every level would make a 20,000-level tree gigabytes of spaces.
 */

export const MAX_INDENTED_DEPTH = 64;

interface Frame {
  close: "]" | "}";
  indent: string;
  /** False past MAX_INDENTED_DEPTH: members go on one line. */
  pretty: boolean;
  /** Key (null in arrays) and value of each member still to write. */
  members: [string | null, unknown][];
  next: number;
}

/** What JSON.stringify serializes for `value` under `key`: the result of a toJSON method if any. */
function serializable(value: unknown, key: string): unknown {
  const withToJson = value as { toJSON?: (key: string) => unknown } | null;
  return withToJson !== null && typeof withToJson === "object" && typeof withToJson.toJSON === "function"
    ? withToJson.toJSON(key)
    : value;
}

/** Values JSON leaves out of objects and writes as null in arrays. */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

export function prettyJson(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const write = (value: unknown, indent: string): void => {
    const pretty = stack.length < MAX_INDENTED_DEPTH;
    if (value === null || typeof value !== "object") {
      out.push(isOmitted(value) ? "null" : (JSON.stringify(value) as string));
    } else if (Array.isArray(value)) {
      if (value.length === 0) out.push("[]");
      else {
        out.push("[");
        const members = value.map((item, index): [null, unknown] => [null, serializable(item, String(index))]);
        stack.push({ close: "]", indent, pretty, members, next: 0 });
      }
    } else {
      const members: [string, unknown][] = [];
      for (const [key, item] of Object.entries(value)) {
        const json = serializable(item, key);
        if (!isOmitted(json)) members.push([key, json]);
      }
      if (members.length === 0) out.push("{}");
      else {
        out.push("{");
        stack.push({ close: "}", indent, pretty, members, next: 0 });
      }
    }
  };
  write(serializable(root, ""), "");
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    const member = frame.members[frame.next];
    if (member === undefined) {
      out.push(frame.pretty ? `\n${frame.indent}${frame.close}` : frame.close);
      stack.pop();
      continue;
    }
    frame.next += 1;
    const [key, value] = member;
    const separator = frame.next > 1 ? "," : "";
    const name = key === null ? "" : `${JSON.stringify(key)}:${frame.pretty ? " " : ""}`;
    const inner = frame.pretty ? `${frame.indent}  ` : frame.indent;
    out.push(frame.pretty ? `${separator}\n${inner}${name}` : `${separator}${name}`);
    write(value, inner);
  }
  return out.join("");
}

/**
 * Characters JSON.stringify leaves as they are that a terminal obeys: DEL and the C1 controls
 * (U+009B starts an escape sequence, as ESC [ does) and the bidirectional controls. Outside
 * strings a document has none, so escaping them everywhere keeps it the same JSON.
 */
const TERMINAL_CONTROL = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `prettyJson` of a document a terminal may show (`--json`): the same value, nothing a terminal obeys. */
export function jsonDocumentText(root: unknown): string {
  return prettyJson(root).replace(TERMINAL_CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

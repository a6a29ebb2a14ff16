import type { ScalarKind } from "./protobuf-descriptor.js";
import type { WireReader } from "./protobuf-wire.js";

/**
 * Turns a message type's compiled fields into one function with a `switch` on the field number,
 * the shape a hand-written protobuf decoder has (and protobufjs generates). Each message type
 * gets a function of its own, so every call in it (`set` of one field, `open` of one nested
 * type) always reaches the same target and the engine can inline it. One generic loop, whose
 * calls reach every field's setter, cannot, and was slower than the hand-written switches this
 * replaced; the generated switch is not (figures: docs/PERFORMANCE.md, decode row). The
 * generated text is made only from field numbers, wire types and charges (integers); everything
 * else is reached through the steps it is given.
 */

/** Reads a message's fields from the reader's position to `end` into `state`. */
export type FieldsReader = (reader: WireReader, state: unknown, end: number) => void;

/** What the generated switch needs to know of a field, at generation time. */
export interface SwitchStep {
  readonly no: number;
  readonly wireType: number;
  /** "scalar" with the reader call that reads it, or a nested message. */
  readonly read: { kind: "scalar"; call: ScalarCall } | { kind: "message"; charge: number; runs: boolean };
}

/** The WireReader call that reads a scalar: its kind's name (bytes: base64; an id reads its step's size). */
export type ScalarCall = Exclude<ScalarKind, "bytes"> | "base64";

/** What the generated code calls back, for the rare paths (a wire type to check, an error to name). */
export interface SwitchHelpers {
  /** A field whose wire type is not its definition's: a packed run, or a FieldError. */
  other(reader: WireReader, step: unknown, tag: number, state: unknown, start: number, at: number): void;
  /** The error to throw for `error` raised inside a nested message's occurrence (its path prefixed). */
  named(error: unknown, reader: WireReader, step: unknown, start: number, at: number): unknown;
  charge(units: number): void;
  /** Reads a run of a repeated message field read in runs (its first tag read, at `at`), to its end. */
  run(reader: WireReader, step: unknown, tag: number, state: unknown, start: number, at: number, end: number): void;
}

function scalarCase(i: number, call: ScalarCall): string {
  const value = call === "id" ? `reader.id(s${i}.size, s${i}.name)` : `reader.${call}()`;
  return `s${i}.set(state, ${value});`;
}

function messageCase(i: number, charge: number): string {
  // The child's compiled entry is read at run time: types may refer to each other.
  return [
    "{",
    "const childEnd = reader.end();",
    `const child = s${i}.child;`,
    "try {",
    charge > 0 ? `helpers.charge(${Math.trunc(charge)});` : "",
    "const childState = child.type.open(state);",
    "child.read(reader, childState, childEnd);",
    `s${i}.set(state, child.type.close(childState));`,
    "} catch (error) {",
    `throw helpers.named(error, reader, s${i}, start, at);`,
    "}",
    "}",
  ].join("\n");
}

/** One function reading a message of these steps (in `steps` order), as a hand-written switch would. */
export function fieldSwitch(steps: readonly SwitchStep[], helpers: SwitchHelpers): FieldsReader {
  const lines = ['"use strict";'];
  steps.forEach((_, i) => {
    lines.push(`const s${i} = steps[${i}];`);
  });
  lines.push("return function readFields(reader, state, end) {");
  lines.push("const start = reader.pos;");
  lines.push("while (reader.pos < end) {");
  lines.push("const at = reader.pos;");
  lines.push("const tag = reader.tag();");
  lines.push("switch (tag >>> 3) {");
  steps.forEach((step, i) => {
    lines.push(`case ${Math.trunc(step.no)}:`);
    lines.push(`if ((tag & 7) !== ${Math.trunc(step.wireType)}) helpers.other(reader, s${i}, tag, state, start, at);`);
    const read = step.read;
    lines.push(
      `else ${read.kind === "scalar" ? scalarCase(i, read.call) : read.runs ? `helpers.run(reader, s${i}, tag, state, start, at, end);` : messageCase(i, read.charge)}`,
    );
    lines.push("break;");
  });
  lines.push("default:");
  lines.push("reader.skip(tag);");
  lines.push("}");
  lines.push("}");
  lines.push("reader.expectEnd(end);");
  lines.push("};");
  const make = new Function("steps", "helpers", lines.join("\n")) as (
    steps: readonly SwitchStep[],
    helpers: SwitchHelpers,
  ) => FieldsReader;
  return make(steps, helpers);
}

import { chargeDecoded, chargedSoFar } from "./decode-allowance.js";
import type { Field, MessageType, RunRecall, ScalarKind } from "./protobuf-descriptor.js";
import { type FieldsReader, fieldSwitch, type SwitchHelpers, type SwitchStep } from "./protobuf-field-switch.js";
import { FieldError, WIRE, type WireReader, within } from "./protobuf-wire.js";

/**
 * Reads any protobuf message by its descriptor (protobuf-descriptor.ts), straight from the body.
 *
 * Each message type is compiled once, on first use: its fields become steps (what to read,
 * where it goes), and its steps one generated field switch (protobuf-field-switch.ts). A type
 * with deferred fields (OTLP's envelope entries) is read by the loops below instead, through the
 * same steps.
 *
 * What it guarantees, for every message alike:
 * - a known field sent with another wire type is refused (FieldError naming it): reading it as
 *   its definition says would misread the bytes, and skipping it would drop what was sent;
 * - unknown fields are skipped (groups checked for their end tag);
 * - a message ends exactly at its declared end;
 * - a singular field's last occurrence wins (a nested message's too, whole: not merged); a
 *   repeated scalar field is taken packed or not;
 * - errors inside a nested message get its path (`events[2].attributes[0].value`), built only
 *   when something is wrong: an element's index is counted again from its message's start.
 */

const OP: Record<ScalarKind | "message" | "element", number> = {
  string: 0,
  bytes: 1,
  bool: 2,
  uint32: 3,
  sint32: 4,
  int64: 5,
  uint64: 6,
  fixed32: 7,
  fixed64: 8,
  sfixed64: 9,
  double: 10,
  id: 11,
  message: 12,
  element: 13,
};

/** One field of a compiled message type. */
interface Step extends SwitchStep {
  readonly no: number;
  readonly name: string;
  /** What it reads: a scalar kind, a singular message or an element of a repeated one. */
  readonly op: number;
  /** A repeated scalar of a packable kind, which may also come as one length-delimited run. */
  readonly packed: boolean;
  /** An id's length in bytes. */
  readonly size: number;
  readonly set: (state: unknown, value: unknown) => void;
  /** The nested message's compiled type (messages only; complete once its own compile returns). */
  child: CompiledType | null;
  readonly charge: number;
  /** The path an element sent with the wrong wire type is reported at, inside its `name[i]`. */
  readonly elementPath: string;
  /** A deferred singular field's index in its type's `lazy`, else -1. */
  readonly lazyIndex: number;
  /** Repeated message fields read a run at a time (`RunRecall`), else null. */
  readonly recall: RunRecall<unknown> | null;
}

interface CompiledType {
  readonly type: MessageType<unknown, unknown, unknown>;
  /** Steps by field number, deferred singular ones included; not the deferred repeated ones. */
  readonly table: (Step | undefined)[];
  /** Deferred singular message fields, read after the first scan from their last occurrence. */
  readonly lazy: Step[];
  /** Deferred repeated message fields by number, read in a second scan. */
  readonly later: (Step | undefined)[];
  /** Whether the type has deferred fields (then it is read in two scans). */
  deferred: boolean;
  /** Reads the type's fields (set once every field is compiled). */
  read: FieldsReader;
}

const compiledTypes = new WeakMap<object, CompiledType>();

const HELPERS: SwitchHelpers = { other: readOtherWireType, named, charge: chargeDecoded, run: readRun };

function wrongWireType(tag: number, expected: number): string {
  return `wire type ${tag & 7} where ${expected} was expected`;
}

function stepOf(field: Field<unknown>): Step {
  if (field.kind === "scalar") {
    const { kind, wireType, packable, size } = field.scalar;
    const packed = field.repeated && packable;
    return {
      no: field.no,
      name: field.name,
      op: OP[kind],
      wireType,
      read: { kind: "scalar", call: kind === "bytes" ? "base64" : kind },
      packed,
      size,
      set: field.set,
      child: null,
      charge: 0,
      elementPath: "",
      lazyIndex: -1,
      recall: null,
    };
  }
  return {
    no: field.no,
    name: field.name,
    op: field.repeated ? OP.element : OP.message,
    wireType: WIRE.LENGTH,
    read: { kind: "message", charge: field.charge, runs: field.recall !== null },
    packed: false,
    size: 0,
    set: field.set,
    child: compiled(field.type()),
    charge: field.charge,
    elementPath: field.elementWireTypePath === "element" ? "" : field.name,
    lazyIndex: -1,
    recall: field.recall as RunRecall<unknown> | null,
  };
}

function compiled(type: MessageType<unknown, unknown, unknown>): CompiledType {
  const known = compiledTypes.get(type);
  if (known !== undefined) return known;
  const entry: CompiledType = { type, table: [], lazy: [], later: [], deferred: false, read: notYet };
  // Registered before its fields are compiled: types may refer to each other.
  compiledTypes.set(type, entry);
  for (const field of type.fields as readonly Field<unknown>[]) {
    const step = stepOf(field);
    if (field.kind === "scalar" || !field.deferred) entry.table[field.no] = step;
    else if (!field.repeated) {
      const lazy = { ...step, lazyIndex: entry.lazy.length };
      entry.lazy.push(lazy);
      entry.table[field.no] = lazy;
    } else entry.later[field.no] = step;
    if (field.kind === "message" && field.deferred) entry.deferred = true;
    if (field.kind === "message" && field.deferred && field.recall !== null)
      throw new Error(`${type.name}.${field.name}: a deferred field is not read in runs`);
  }
  entry.read = entry.deferred
    ? (reader, state, end) => readDeferring(reader, entry, state, reader.pos, end)
    : fieldSwitch(
        entry.table.filter((step) => step !== undefined),
        HELPERS,
      );
  return entry;
}

function notYet(): void {
  throw new Error("a message type was read before it was compiled");
}

/** How many times field `no` occurs between `start` and `at`: an element's index, for its error path. */
function occurrences(reader: WireReader, start: number, at: number, no: number): number {
  reader.seek(start);
  let count = 0;
  while (reader.pos < at) {
    const tag = reader.tag();
    if (tag >>> 3 === no) count++;
    reader.skip(tag);
  }
  return count;
}

function scalarValue(reader: WireReader, step: Step): unknown {
  switch (step.op) {
    case OP.string:
      return reader.string();
    case OP.bytes:
      return reader.base64();
    case OP.bool:
      return reader.bool();
    case OP.uint32:
      return reader.uint32();
    case OP.sint32:
      return reader.sint32();
    case OP.int64:
      return reader.int64();
    case OP.uint64:
      return reader.uint64();
    case OP.fixed32:
      return reader.fixed32();
    case OP.fixed64:
      return reader.fixed64();
    case OP.sfixed64:
      return reader.sfixed64();
    case OP.double:
      return reader.double();
    default:
      return reader.id(step.size, step.name);
  }
}

/** Reads a nested message's content, from the reader's position to `end`, and closes it. */
function readNested(reader: WireReader, child: CompiledType, parent: unknown, end: number): unknown {
  const state = child.type.open(parent);
  child.read(reader, state, end);
  return child.type.close(state);
}

/** Reads one occurrence of a field whose tag (at `at`, in a message that began at `start`) is read. */
function readStep(reader: WireReader, step: Step, tag: number, state: unknown, start: number, at: number): void {
  if ((tag & 7) !== step.wireType) readOtherWireType(reader, step, tag, state, start, at);
  else if (step.op < OP.message) step.set(state, scalarValue(reader, step));
  else readChild(reader, step, state, start, at);
}

/** Reads a nested message field's occurrence, naming it in the errors from inside. */
function readChild(reader: WireReader, step: Step, state: unknown, start: number, at: number): void {
  const end = reader.end();
  try {
    if (step.charge > 0) chargeDecoded(step.charge);
    step.set(state, readNested(reader, step.child as CompiledType, state, end));
  } catch (error) {
    throw named(error, reader, step, start, at);
  }
}

/**
 * Reads a run of a repeated message field (RunRecall) whose first tag, at `at`, is read: finds
 * where the run ends, offers its bytes, and skips them when they are recalled, charging what
 * reading them cost; otherwise reads its occurrences one by one, as the field switch would (bad
 * wire data is then refused as it would be without runs), and tells what that cost. The run is
 * offered once, whole or as null: its scan stops at `maxBytes` or at bad wire data.
 */
function readRun(
  reader: WireReader,
  step: Step,
  tag: number,
  state: unknown,
  start: number,
  at: number,
  end: number,
): void {
  const recall = step.recall as RunRecall<unknown>;
  let runEnd = at;
  // Whether the scan reached another field or the message's end, so the bytes are the whole run.
  let whole = true;
  reader.seek(at);
  try {
    while (reader.pos < end) {
      if (reader.tag() !== tag) break;
      const elementEnd = reader.end();
      if (elementEnd > end || elementEnd - at > recall.maxBytes) {
        whole = false;
        break;
      }
      reader.seek(elementEnd);
      runEnd = elementEnd;
    }
  } catch {
    whole = false;
  }
  const units = recall.recall(state, whole ? reader.run(at, runEnd) : null);
  if (whole && units >= 0) {
    chargeDecoded(units);
    reader.seek(runEnd);
    return;
  }
  const before = chargedSoFar();
  reader.seek(at);
  while (reader.pos < end) {
    const elementAt = reader.pos;
    if (reader.tag() !== tag) {
      reader.seek(elementAt);
      break;
    }
    readChild(reader, step, state, start, elementAt);
  }
  if (whole) recall.read(state, chargedSoFar() - before);
}

/** Prefixes a FieldError raised inside a nested message with its field (`status`, `events[2]`). */
function named(error: unknown, reader: WireReader, step: Step, start: number, at: number): unknown {
  if (!(error instanceof FieldError)) return error;
  return within(error, step.op === OP.message ? step.name : `${step.name}[${occurrences(reader, start, at, step.no)}]`);
}

/** A field whose wire type is not its definition's: a packed run of a repeated scalar, or an error. */
function readOtherWireType(
  reader: WireReader,
  step: Step,
  tag: number,
  state: unknown,
  start: number,
  at: number,
): void {
  if (step.packed && (tag & 7) === WIRE.LENGTH) {
    const end = reader.end();
    while (reader.pos < end) step.set(state, scalarValue(reader, step));
    reader.expectEnd(end);
    return;
  }
  const error = new FieldError(
    step.op === OP.element ? step.elementPath : step.name,
    wrongWireType(tag, step.wireType),
  );
  if (step.op !== OP.element) throw error;
  throw within(error, `${step.name}[${occurrences(reader, start, at, step.no)}]`);
}

/**
 * Reads the fields of `table` from `start` to `end`, skipping the others. With `places`, a
 * deferred singular field is not read: its wire type is checked and its place kept.
 */
function scan(
  reader: WireReader,
  table: readonly (Step | undefined)[],
  state: unknown,
  start: number,
  end: number,
  places: number[] | null,
): void {
  while (reader.pos < end) {
    const at = reader.pos;
    const tag = reader.tag();
    const step = table[tag >>> 3];
    if (step === undefined) reader.skip(tag);
    else if (places === null || step.lazyIndex < 0) readStep(reader, step, tag, state, start, at);
    else {
      if ((tag & 7) !== WIRE.LENGTH) throw new FieldError(step.name, wrongWireType(tag, WIRE.LENGTH));
      places[step.lazyIndex] = reader.pos;
      reader.seek(reader.end());
    }
  }
  reader.expectEnd(end);
}

/** Reads a deferred singular field from its last occurrence (at its length), or as an empty message. */
function readLazy(reader: WireReader, step: Step, state: unknown, place: number): void {
  const child = step.child as CompiledType;
  try {
    if (place < 0) {
      step.set(state, child.type.close(child.type.open(state)));
      return;
    }
    reader.seek(place);
    const end = reader.end();
    if (step.charge > 0) chargeDecoded(step.charge);
    step.set(state, readNested(reader, child, state, end));
  } catch (error) {
    throw within(error, step.name);
  }
}

/** Reads a message with deferred fields: a first scan, its deferred singular fields, then a second scan. */
function readDeferring(reader: WireReader, type: CompiledType, state: unknown, start: number, end: number): void {
  // Where each deferred singular field's last occurrence begins (at its length), -1 when absent.
  const places = type.lazy.map(() => -1);
  scan(reader, type.table, state, start, end, places);
  type.lazy.forEach((step, index) => {
    readLazy(reader, step, state, places[index] as number);
  });
  reader.seek(start);
  scan(reader, type.later, state, start, end, null);
}

/**
 * Reads a whole body as a message of `type`; `parent` is what its `open` takes. Errors go up as
 * they are (FieldError with its path, RangeError and protobufjs's errors for broken wire data).
 */
export function readMessage<S, R, P>(body: WireReader, type: MessageType<S, R, P>, parent: P): R {
  return readNested(body, compiled(type as MessageType<unknown, unknown, unknown>), parent, body.length) as R;
}

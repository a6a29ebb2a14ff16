import type { ByteRun } from "./byte-runs.js";
import { WIRE } from "./protobuf-wire.js";

/**
 * Field descriptors: what a protobuf message's fields are (number, wire type, where the value
 * goes, which message a nested field holds, repeated or not), written once per message as data.
 * protobuf-message-reader.ts reads any message by its descriptor, so decoding a new OTLP message
 * is writing its descriptor, not another field switch. The descriptors follow the vendored
 * definitions under schemas/otlp/; test/unit/otlp/protobuf-descriptors.test.ts checks them
 * against those files.
 *
 * A message is read into a state object of its own (`open`), field by field (`set`), and turned
 * into what its parent keeps (`close`): a record, a plain value, a resource's index. The state is
 * where a message checks what a field alone cannot (a span's non-zero ids) and takes what it
 * needs from its parent (the resource and scope a span belongs to).
 */

/** The scalar types OTLP uses; protobuf-message-reader.ts reads each as the records hold it. */
export type ScalarKind =
  | "string"
  | "bytes"
  | "bool"
  | "uint32"
  | "sint32"
  | "int64"
  | "uint64"
  | "fixed32"
  | "fixed64"
  | "sfixed64"
  | "double"
  | "id";

/** A scalar type and the value it is read as (`V`, for the setters' types only). */
export interface Scalar<V> {
  readonly kind: ScalarKind;
  readonly wireType: number;
  /** Whether a repeated field of it may come packed (numbers may; strings and bytes may not). */
  readonly packable: boolean;
  /** An id's length in bytes (0 for the other kinds). */
  readonly size: number;
  /** Never set: carries the value's type. */
  readonly value?: V;
}

function scalar<V>(kind: ScalarKind, wireType: number, size = 0): Scalar<V> {
  return { kind, wireType, packable: wireType !== WIRE.LENGTH, size };
}

export const SCALAR = {
  /** A string, refused unless it is valid UTF-8. */
  string: scalar<string>("string", WIRE.LENGTH),
  /** bytes as base64 text. */
  bytes: scalar<string>("bytes", WIRE.LENGTH),
  bool: scalar<boolean>("bool", WIRE.VARINT),
  /** uint32 and enums (a negative enum reads as its two's complement). */
  uint32: scalar<number>("uint32", WIRE.VARINT),
  sint32: scalar<number>("sint32", WIRE.VARINT),
  /** int64 as a number when exact, else its decimal text. */
  int64: scalar<number | string>("int64", WIRE.VARINT),
  /** uint64 varint as an exact bigint. */
  uint64: scalar<bigint>("uint64", WIRE.VARINT),
  fixed32: scalar<number>("fixed32", WIRE.FIXED32),
  /** fixed64 as an exact unsigned bigint. */
  fixed64: scalar<bigint>("fixed64", WIRE.FIXED64),
  /** sfixed64 as an exact signed bigint. */
  sfixed64: scalar<bigint>("sfixed64", WIRE.FIXED64),
  double: scalar<number>("double", WIRE.FIXED64),
  /** A trace id (16 bytes) or span id (8 bytes) as lowercase hex, null when empty; another length is refused. */
  id: (size: number): Scalar<string | null> => scalar("id", WIRE.LENGTH, size),
} as const;

/**
 * A message type: its fields, and how its state is made and closed. `P` is the state of the
 * message that holds it (what `open` may take from its parent), `S` its own state, `R` what it
 * gives its parent.
 */
export interface MessageType<S, R, P> {
  /** The proto message's name, for tests and messages; paths in errors use field names. */
  readonly name: string;
  readonly fields: readonly Field<S>[];
  /**
   * The state one occurrence is read into; may throw a FieldError (path "") to refuse it (too
   * deep). It may be a state shared with the parent or reused (no allocation per value), as long
   * as nothing keeps it after `close`.
   */
  open(parent: P): S;
  /** What the message gives its parent, once all its fields are read; may throw a FieldError. */
  close(state: S): R;
}

interface FieldBase {
  /** The field number. */
  readonly no: number;
  /** The field's OTLP/JSON name: errors name it (`spans[3].traceId`). */
  readonly name: string;
  readonly repeated: boolean;
}

export interface ScalarField<S> extends FieldBase {
  readonly kind: "scalar";
  readonly scalar: Scalar<unknown>;
  set(state: S, value: unknown): void;
}

export interface MessageField<S> extends FieldBase {
  readonly kind: "message";
  /** The nested message's type; a function where types refer to each other (AnyValue, ArrayValue). */
  readonly type: () => MessageType<unknown, unknown, S>;
  /** Decode-allowance units charged for each occurrence, before its content is read (0: none). */
  readonly charge: number;
  /**
   * Read after the message's other fields, whatever the order they came in: a singular one
   * from its last occurrence (or as an empty message when absent), then the repeated ones in
   * a second scan. OTLP's envelope needs it: the resource of a ResourceSpans may come after its
   * scopeSpans, and every span needs its resource's index.
   */
  readonly deferred: boolean;
  /**
   * Where a repeated element sent with the wrong wire type is reported: `values[2]` by default,
   * `values[2].values` where the reader always has (AnyValue's arrays and kvlists), so the
   * error answers keep their bytes.
   */
  readonly elementWireTypePath: "element" | "element.field";
  /** Whether a run of its occurrences may be known by its bytes, not read (repeated fields only). */
  readonly recall: RunRecall<S> | null;
  set(state: S, value: unknown): void;
}

/**
 * A repeated message field whose run of occurrences (those that follow each other, from the
 * first one's tag to the last one's end) may be known by its bytes. At each run the reader
 * calls `recall` with those bytes, an object valid only during the call (null when it cannot
 * offer them: a run longer than `maxBytes`, or one broken by bad wire data). A run it recalls
 * is skipped, and what reading it cost the decode allowance is charged; any other is read as
 * usual, and when it was offered with its bytes `read` is told what it cost. A message whose field comes in more than
 * one run is offered each of them. What a recalled run gives is up to the state: the reader
 * only guarantees that equal bytes were offered (protobuf-metric-points.ts: a series' points
 * send the same attributes every interval).
 */
export interface RunRecall<S> {
  /** The longest run offered with its bytes. */
  readonly maxBytes: number;
  /**
   * A run begins. Returns the decode-allowance units reading it cost (what `read` was told) to
   * skip it, or -1 to have it read; a run offered without its bytes is always read.
   */
  recall(state: S, run: ByteRun | null): number;
  /** A run offered with its bytes was read, at a cost of `units`. */
  read(state: S, units: number): void;
}

export type Field<S> = ScalarField<S> | MessageField<S>;

/** A singular scalar field: the last occurrence wins, as protobuf says. */
export function scalarField<S, V>(
  no: number,
  name: string,
  type: Scalar<V>,
  set: (state: S, value: V) => void,
): Field<S> {
  return { kind: "scalar", no, name, repeated: false, scalar: type, set: set as (state: S, value: unknown) => void };
}

/** A repeated scalar field, packed or not (a reader must take both); `add` gets each element. */
export function repeatedScalarField<S, V>(
  no: number,
  name: string,
  type: Scalar<V>,
  add: (state: S, value: V) => void,
): Field<S> {
  return { kind: "scalar", no, name, repeated: true, scalar: type, set: add as (state: S, value: unknown) => void };
}

export interface MessageFieldOptions<S = unknown> {
  charge?: number;
  deferred?: boolean;
  elementWireTypePath?: "element" | "element.field";
  recall?: RunRecall<S>;
}

function messageOf<S, C, R>(
  no: number,
  name: string,
  repeated: boolean,
  type: MessageType<C, R, S> | (() => MessageType<C, R, S>),
  set: (state: S, value: R) => void,
  options: MessageFieldOptions<S>,
): Field<S> {
  const resolve = typeof type === "function" ? type : () => type;
  return {
    kind: "message",
    no,
    name,
    repeated,
    type: resolve as () => MessageType<unknown, unknown, S>,
    charge: options.charge ?? 0,
    deferred: options.deferred ?? false,
    elementWireTypePath: options.elementWireTypePath ?? "element",
    recall: options.recall ?? null,
    set: set as (state: S, value: unknown) => void,
  };
}

/** A singular message field: each occurrence is read whole; the last one's value is kept by `set`. */
export function messageField<S, C, R>(
  no: number,
  name: string,
  type: MessageType<C, R, S> | (() => MessageType<C, R, S>),
  set: (state: S, value: R) => void,
  options: MessageFieldOptions<S> = {},
): Field<S> {
  if (options.recall !== undefined) throw new Error(`${name}: only a repeated field is read in runs`);
  return messageOf(no, name, false, type, set, options);
}

/** A repeated message field; `add` gets each element's value in the order they came. */
export function repeatedMessageField<S, C, R>(
  no: number,
  name: string,
  type: MessageType<C, R, S> | (() => MessageType<C, R, S>),
  add: (state: S, value: R) => void,
  options: MessageFieldOptions<S> = {},
): Field<S> {
  return messageOf(no, name, true, type, add, options);
}

import { MAX_DEPTH, type PlainValue, setPlainKey } from "./any-value.js";
import {
  type Field,
  type MessageType,
  messageField,
  type RunRecall,
  repeatedMessageField,
  SCALAR,
  scalarField,
} from "./protobuf-descriptor.js";
import { FieldError } from "./protobuf-wire.js";

/**
 * Descriptors of OTLP's common value messages (opentelemetry/proto/common/v1/common.proto):
 * KeyValue, AnyValue, ArrayValue and KeyValueList, read to plain values with the same
 * conversions as toPlainValue in any-value.ts: strings, bools and doubles as themselves (NaN
 * and the infinities as their names), int64 as a number when exact and else decimal text,
 * bytes as base64, arrays and kvlists recursively, an empty AnyValue as null.
 */

/** An attribute object as it is being read: keys in arrival order, a repeated key keeps its last value. */
export type PlainObject = { [key: string]: PlainValue };

/** How many arrays and kvlists hold the value being read (attribute values: 0). */
interface Nesting {
  readonly depth: number;
}

interface AnyValueState extends Nesting {
  value: PlainValue;
}

interface KeyValueState extends AnyValueState {
  key: string;
}

interface ArrayState extends Nesting {
  readonly values: PlainValue[];
  /** Where each element is read before it is pushed (elements are read one at a time). */
  readonly element: AnyValueState;
}

interface KeyValueListState extends Nesting {
  readonly attributes: PlainObject;
}

/** A message that holds attributes (a span, a resource, a kvlist): they are read into `attributes`. */
export interface AttributeHolder {
  readonly attributes: PlainObject;
}

function setValue(state: AnyValueState, value: PlainValue): void {
  state.value = value;
}

/*
 * Attribute values are most of what a request holds, so their states are not made per value: an
 * AnyValue is read into the state of what holds it (its KeyValue, its array's element slot), and
 * a KeyValue into the one entry state of its depth (one KeyValue per depth is read at a time).
 */

/** AnyValue: a oneof, so the member set last wins, as protobuf's oneof rule says. */
function anyValueType<P>(stateOf: (parent: P) => AnyValueState): MessageType<AnyValueState, PlainValue, P> {
  return {
    name: "opentelemetry.proto.common.v1.AnyValue",
    fields: ANY_VALUE_FIELDS,
    open(parent) {
      const state = stateOf(parent);
      if (state.depth > MAX_DEPTH) throw new FieldError("", `values nested deeper than ${MAX_DEPTH} levels`);
      state.value = null;
      return state;
    },
    close: (state) => state.value,
  };
}

/** The entry state of each depth, reused for every KeyValue read at it. */
const entries: KeyValueState[] = [];

/** KeyValue: read into its holder's attributes by the field that holds it (`attributesField`). */
function keyValueType<P>(depthOf: (parent: P) => number): MessageType<KeyValueState, KeyValueState, P> {
  return {
    name: "opentelemetry.proto.common.v1.KeyValue",
    fields: KEY_VALUE_FIELDS,
    open(parent) {
      const depth = depthOf(parent);
      let entry = entries[depth];
      if (entry === undefined) {
        entry = { key: "", value: null, depth };
        entries[depth] = entry;
      }
      entry.key = "";
      entry.value = null;
      return entry;
    },
    close: (state) => state,
  };
}

const ARRAY_VALUE: MessageType<ArrayState, PlainValue[], Nesting> = {
  name: "opentelemetry.proto.common.v1.ArrayValue",
  fields: [
    repeatedMessageField(
      1,
      "values",
      () => ELEMENT_VALUE,
      (state: ArrayState, value: PlainValue) => state.values.push(value),
      {
        charge: 1,
        elementWireTypePath: "element.field",
      },
    ),
  ],
  open: (parent) => ({ values: [], depth: parent.depth + 1, element: { value: null, depth: parent.depth + 1 } }),
  close: (state) => state.values,
};

const KEY_VALUE_LIST: MessageType<KeyValueListState, PlainObject, Nesting> = {
  name: "opentelemetry.proto.common.v1.KeyValueList",
  fields: [
    repeatedMessageField<KeyValueListState, KeyValueState, KeyValueState>(1, "values", () => LIST_ENTRY, addAttribute, {
      charge: 1,
      elementWireTypePath: "element.field",
    }),
  ],
  open: (parent) => ({ attributes: {}, depth: parent.depth + 1 }),
  close: (state) => state.attributes,
};

const ANY_VALUE_FIELDS: readonly Field<AnyValueState>[] = [
  scalarField(1, "stringValue", SCALAR.string, setValue),
  scalarField(2, "boolValue", SCALAR.bool, setValue),
  scalarField(3, "intValue", SCALAR.int64, setValue),
  scalarField(4, "doubleValue", SCALAR.double, (state: AnyValueState, n: number) => {
    state.value = Number.isFinite(n) ? n : String(n);
  }),
  messageField(5, "arrayValue", ARRAY_VALUE, setValue),
  messageField(6, "kvlistValue", KEY_VALUE_LIST, setValue),
  scalarField(7, "bytesValue", SCALAR.bytes, setValue),
];

const KEY_VALUE_FIELDS: readonly Field<KeyValueState>[] = [
  scalarField(1, "key", SCALAR.string, (state: KeyValueState, key: string) => {
    state.key = key;
  }),
  messageField(2, "value", () => ENTRY_VALUE, setValue),
];

/** A KeyValue's value, read into the KeyValue's state. */
const ENTRY_VALUE = anyValueType((parent: KeyValueState) => parent);
/** An array's element, read into the array's element slot. */
const ELEMENT_VALUE = anyValueType((parent: ArrayState) => parent.element);
/** A KeyValue of a kvlist. */
const LIST_ENTRY = keyValueType((parent: Nesting) => parent.depth);
/** A KeyValue of a message's attributes. */
const ATTRIBUTE = keyValueType((_parent: AttributeHolder) => 0);

function addAttribute(holder: AttributeHolder, entry: KeyValueState): void {
  setPlainKey(holder.attributes, entry.key, entry.value);
}

/**
 * A message's `repeated KeyValue attributes` field (or another KeyValue list: a metric's
 * `metadata`, an exemplar's `filteredAttributes`): each attribute charged one value, read into
 * the holder's `attributes`, unless `recall` knows the run of them (RunRecall).
 */
export function attributesField<S extends AttributeHolder>(
  no: number,
  name = "attributes",
  recall?: RunRecall<S>,
): Field<S> {
  return repeatedMessageField(no, name, ATTRIBUTE, addAttribute, recall ? { charge: 1, recall } : { charge: 1 });
}

/** An AnyValue that is a field of its own (a log record's body), not an attribute's value. */
export const TOP_VALUE: MessageType<AnyValueState, PlainValue, unknown> = anyValueType(() => ({
  value: null,
  depth: 0,
}));

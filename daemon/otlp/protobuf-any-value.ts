import { MAX_DEPTH, type PlainValue, setPlainKey } from "./any-value.js";
import { chargeDecoded } from "./decode-allowance.js";
import { expectWireType, FieldError, WIRE, type WireReader, within } from "./protobuf-wire.js";

/** An attribute object as it is being read: keys in arrival order, a repeated key keeps its last value. */
export type PlainObject = { [key: string]: PlainValue };

/**
 * Reads one KeyValue message (ending at `end`) into `object`, with the same conversions as
 * toPlainValue in any-value.ts: strings, bools and doubles as themselves (NaN and the
 * infinities as their names), int64 as a number when exact and else decimal text, bytes as
 * base64, arrays and kvlists recursively, an empty AnyValue as null.
 */
export function readKeyValue(reader: WireReader, end: number, object: PlainObject, depth: number): void {
  chargeDecoded();
  let key = "";
  let value: PlainValue = null;
  while (reader.pos < end) {
    const tag = reader.tag();
    const field = tag >>> 3;
    if (field === 1) {
      expectWireType(tag, WIRE.LENGTH, "key");
      key = reader.string();
    } else if (field === 2) {
      expectWireType(tag, WIRE.LENGTH, "value");
      const valueEnd = reader.end();
      try {
        value = readAnyValue(reader, valueEnd, depth);
      } catch (error) {
        throw within(error, "value");
      }
    } else {
      reader.skip(tag);
    }
  }
  reader.expectEnd(end);
  setPlainKey(object, key, value);
}

/** Reads an AnyValue message; the oneof member set last wins, as protobuf's oneof rule says. */
function readAnyValue(reader: WireReader, end: number, depth: number): PlainValue {
  if (depth > MAX_DEPTH) throw new FieldError("", `values nested deeper than ${MAX_DEPTH} levels`);
  let value: PlainValue = null;
  while (reader.pos < end) {
    const tag = reader.tag();
    switch (tag >>> 3) {
      case 1:
        expectWireType(tag, WIRE.LENGTH, "stringValue");
        value = reader.string();
        break;
      case 2:
        expectWireType(tag, WIRE.VARINT, "boolValue");
        value = reader.bool();
        break;
      case 3:
        expectWireType(tag, WIRE.VARINT, "intValue");
        value = reader.int64();
        break;
      case 4: {
        expectWireType(tag, WIRE.FIXED64, "doubleValue");
        const n = reader.double();
        value = Number.isFinite(n) ? n : String(n);
        break;
      }
      case 5:
        expectWireType(tag, WIRE.LENGTH, "arrayValue");
        value = readNested(reader, "arrayValue", depth, [] as PlainValue[]);
        break;
      case 6:
        expectWireType(tag, WIRE.LENGTH, "kvlistValue");
        value = readNested(reader, "kvlistValue", depth, {} as PlainObject);
        break;
      case 7:
        expectWireType(tag, WIRE.LENGTH, "bytesValue");
        value = reader.base64();
        break;
      default:
        reader.skip(tag);
    }
  }
  reader.expectEnd(end);
  return value;
}

/** Reads an ArrayValue or KeyValueList (`values = 1` either way) into `into`. */
function readNested<T extends PlainValue[] | PlainObject>(
  reader: WireReader,
  member: string,
  depth: number,
  into: T,
): T {
  const end = reader.end();
  let i = 0;
  while (reader.pos < end) {
    const tag = reader.tag();
    if (tag >>> 3 !== 1) {
      reader.skip(tag);
      continue;
    }
    try {
      expectWireType(tag, WIRE.LENGTH, "values");
      const itemEnd = reader.end();
      if (Array.isArray(into)) {
        chargeDecoded();
        into.push(readAnyValue(reader, itemEnd, depth + 1));
      } else readKeyValue(reader, itemEnd, into as PlainObject, depth + 1);
    } catch (error) {
      throw within(within(error, `values[${i}]`), member);
    }
    i++;
  }
  reader.expectEnd(end);
  return into;
}

/** Reads an AnyValue that is a field of its own (a log record's body), not an attribute's value. */
export function readTopValue(reader: WireReader, end: number): PlainValue {
  return readAnyValue(reader, end, 0);
}

/** Reads one element of a repeated KeyValue field (`attributes[i]`) into `object`. */
export function readAttribute(reader: WireReader, tag: number, object: PlainObject, index: number): void {
  try {
    expectWireType(tag, WIRE.LENGTH, "");
    readKeyValue(reader, reader.end(), object, 0);
  } catch (error) {
    throw within(error, `attributes[${index}]`);
  }
}

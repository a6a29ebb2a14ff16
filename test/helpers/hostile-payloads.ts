/**
 * OTLP/protobuf bodies built to cost the collector as much memory as a body of their size can:
 * many tiny attributes or array items, each a few bytes on the wire and an object, a string
 * and an index entry once decoded. Written field by field (protobufjs's Writer), since building
 * message objects of a million attributes first would take longer than the test.
 */
import protobuf from "protobufjs";

const LEN = 2;
const VARINT = 0;
const FIXED64 = 1;

function tag(writer: protobuf.Writer, field: number, wire: number): protobuf.Writer {
  return writer.uint32((field << 3) | wire);
}

/** KeyValue { key = 1; value = 2 (AnyValue { string_value = 1 }) } */
function keyValue(writer: protobuf.Writer, key: string, value: string): void {
  tag(writer, 1, LEN).string(key);
  tag(writer, 2, LEN).fork();
  tag(writer, 1, LEN).string(value);
  writer.ldelim();
}

function attribute(writer: protobuf.Writer, field: number, key: string, value: string): void {
  tag(writer, field, LEN).fork();
  keyValue(writer, key, value);
  writer.ldelim();
}

/** KeyValue { key; value = AnyValue { array_value = 5 (ArrayValue { values = 1 }) } } of `items` one-byte strings. */
function arrayAttribute(writer: protobuf.Writer, field: number, key: string, items: number): void {
  tag(writer, field, LEN).fork();
  tag(writer, 1, LEN).string(key);
  tag(writer, 2, LEN).fork();
  tag(writer, 5, LEN).fork();
  for (let i = 0; i < items; i++) {
    tag(writer, 1, LEN).fork();
    tag(writer, 1, LEN).string("x");
    writer.ldelim();
  }
  writer.ldelim();
  writer.ldelim();
  writer.ldelim();
}

function resourceAndScope(writer: protobuf.Writer, service: string): void {
  tag(writer, 1, LEN).fork(); // resource
  attribute(writer, 1, "service.name", service);
  writer.ldelim();
}

function fixed64(writer: protobuf.Writer, field: number, ns: bigint): void {
  tag(writer, field, FIXED64).fixed64(ns.toString() as unknown as number);
}

function id(n: number, bytes: number): Uint8Array {
  return Buffer.from((n + 1).toString(16).padStart(bytes * 2, "0"), "hex");
}

export interface HostileShape {
  /** Spans (or log records) in the request. */
  records: number;
  /** One-byte attributes on each record (keys `a0`, `a1`, ...). */
  attributes: number;
  /** One-byte items of one array attribute on each record (0: none). */
  arrayItems?: number;
}

/** A request of `shape` for `/v1/traces` (or `/v1/logs`), timestamped `nowNs`. */
export function hostileBody(signal: "traces" | "logs", shape: HostileShape, nowNs: bigint, seed = 0): Buffer {
  const writer = protobuf.Writer.create();
  tag(writer, 1, LEN).fork(); // resource_spans / resource_logs
  resourceAndScope(writer, `hostile-${signal}`);
  tag(writer, 2, LEN).fork(); // scope_spans / scope_logs
  tag(writer, 1, LEN).fork();
  tag(writer, 1, LEN).string("hostile");
  writer.ldelim();
  for (let r = 0; r < shape.records; r++) {
    tag(writer, 2, LEN).fork(); // span / log record
    if (signal === "traces") {
      tag(writer, 1, LEN).bytes(id(seed, 16));
      tag(writer, 2, LEN).bytes(id(r, 8));
      tag(writer, 5, LEN).string("op");
      tag(writer, 6, VARINT).uint32(1);
      fixed64(writer, 7, nowNs);
      fixed64(writer, 8, nowNs + 1000n);
    } else {
      fixed64(writer, 1, nowNs + BigInt(r));
      tag(writer, 2, VARINT).uint32(9);
      tag(writer, 5, LEN).fork();
      tag(writer, 1, LEN).string(`log ${seed} ${r}`);
      writer.ldelim();
    }
    const field = signal === "traces" ? 9 : 6;
    for (let a = 0; a < shape.attributes; a++) attribute(writer, field, `a${a}`, "x");
    if (shape.arrayItems) arrayAttribute(writer, field, "list", shape.arrayItems);
    writer.ldelim();
  }
  writer.ldelim();
  writer.ldelim();
  return Buffer.from(writer.finish());
}

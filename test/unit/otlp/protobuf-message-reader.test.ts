import { expect } from "chai";
import Long from "long";
import protobuf from "protobufjs";
import { decodeWithin } from "../../../daemon/otlp/decode-allowance.js";
import {
  type Field,
  type MessageType,
  messageField,
  type RunRecall,
  repeatedMessageField,
  repeatedScalarField,
  SCALAR,
  type Scalar,
  scalarField,
} from "../../../daemon/otlp/protobuf-descriptor.js";
import { readMessage } from "../../../daemon/otlp/protobuf-message-reader.js";
import { FieldError, WireReader } from "../../../daemon/otlp/protobuf-wire.js";
import { seededRandom } from "../../helpers/fuzz-payloads.js";

/** Every scalar kind the reader knows, singular and repeated (packed by default in proto3, or not). */
const SCHEMA = `
syntax = "proto3";
message Sample {
  string s = 1; bytes b = 2; bool flag = 3; uint32 u32 = 4; sint32 z32 = 5; int64 i64 = 6;
  uint64 u64 = 7; fixed32 f32 = 8; fixed64 f64 = 9; sfixed64 sf64 = 10; double d = 11;
  repeated double ds = 12; repeated fixed64 fs = 13; repeated uint64 us = 14; repeated sint32 zs = 15;
  repeated string names = 16; Sample child = 17; repeated Sample children = 18; repeated int64 is = 19;
}
message Unpacked {
  string s = 1; bytes b = 2; bool flag = 3; uint32 u32 = 4; sint32 z32 = 5; int64 i64 = 6;
  uint64 u64 = 7; fixed32 f32 = 8; fixed64 f64 = 9; sfixed64 sf64 = 10; double d = 11;
  repeated double ds = 12 [packed = false]; repeated fixed64 fs = 13 [packed = false];
  repeated uint64 us = 14 [packed = false]; repeated sint32 zs = 15 [packed = false];
  repeated string names = 16; Unpacked child = 17; repeated Unpacked children = 18;
  repeated int64 is = 19 [packed = false]; string extra = 99;
}
`;
const root = protobuf.parse(SCHEMA, { keepCase: true }).root;
const PACKED = root.lookupType("Sample");
const UNPACKED = root.lookupType("Unpacked");

/** What the reader gives for a Sample: every value as text, so it compares with protobufjs's. */
type Plain = { [key: string]: string | string[] | Plain | Plain[] };

const SINGULAR: [number, string, Scalar<unknown>][] = [
  [1, "s", SCALAR.string],
  [2, "b", SCALAR.bytes],
  [3, "flag", SCALAR.bool],
  [4, "u32", SCALAR.uint32],
  [5, "z32", SCALAR.sint32],
  [6, "i64", SCALAR.int64],
  [7, "u64", SCALAR.uint64],
  [8, "f32", SCALAR.fixed32],
  [9, "f64", SCALAR.fixed64],
  [10, "sf64", SCALAR.sfixed64],
  [11, "d", SCALAR.double],
];
const REPEATED: [number, string, Scalar<unknown>][] = [
  [12, "ds", SCALAR.double],
  [13, "fs", SCALAR.fixed64],
  [14, "us", SCALAR.uint64],
  [15, "zs", SCALAR.sint32],
  [16, "names", SCALAR.string],
  [19, "is", SCALAR.int64],
];

function list(state: Plain, key: string): string[] {
  state[key] ??= [];
  return state[key] as string[];
}

const SAMPLE: MessageType<Plain, Plain, unknown> = {
  name: "Sample",
  fields: [
    ...SINGULAR.map(([no, name, type]) =>
      scalarField(no, name, type, (state: Plain, value) => {
        state[name] = String(value);
      }),
    ),
    ...REPEATED.map(([no, name, type]) =>
      repeatedScalarField(no, name, type, (state: Plain, value) => list(state, name).push(String(value))),
    ),
    messageField(
      17,
      "child",
      () => SAMPLE,
      (state: Plain, child) => {
        state.child = child;
      },
    ),
    repeatedMessageField(
      18,
      "children",
      () => SAMPLE,
      (state: Plain, child) => {
        state.children ??= [];
        (state.children as Plain[]).push(child);
      },
    ),
  ] as Field<Plain>[],
  open: () => ({}),
  close: (state) => state,
};

function read(body: Uint8Array): Plain {
  return readMessage(new WireReader(Buffer.from(body)), SAMPLE, null);
}

/** protobufjs's decoding of the same bytes, as the same text values (fields sent only). */
function reference(type: protobuf.Type, body: Uint8Array): Plain {
  const text = (value: unknown, kind: string): string => {
    if (kind === "bytes") return Buffer.from(value as Uint8Array).toString("base64");
    if (Long.isLong(value)) return (value as Long).toString();
    return String(value);
  };
  const plain = (message: protobuf.Message): Plain => {
    const out: Plain = {};
    for (const field of (message.$type as protobuf.Type).fieldsArray) {
      if (field.name === "extra") continue;
      const value = (message as unknown as Record<string, unknown>)[field.name];
      if (!Object.hasOwn(message, field.name) || value == null) continue;
      if (field.repeated && (value as unknown[]).length === 0) continue;
      if (field.resolvedType) {
        out[field.name] = field.repeated ? (value as protobuf.Message[]).map(plain) : plain(value as protobuf.Message);
      } else {
        out[field.name] = field.repeated
          ? (value as unknown[]).map((item) => text(item, field.type))
          : text(value, field.type);
      }
    }
    return out;
  };
  return plain(type.decode(body));
}

function randomSample(random: () => number, depth: number): Record<string, unknown> {
  const int = (bound: number) => Math.floor(random() * bound);
  const long = (unsigned: boolean) => Long.fromBits(int(2 ** 32) | 0, random() < 0.5 ? 0 : int(2 ** 32) | 0, unsigned);
  const some = <T>(make: () => T): T[] => Array.from({ length: int(4) }, make);
  const values: Record<string, () => unknown> = {
    s: () => ["", "a", "é", "ünïcode ✓"][int(4)],
    b: () => Buffer.from(some(() => int(256))),
    flag: () => random() < 0.5,
    u32: () => int(2 ** 32),
    z32: () => int(2 ** 32) - 2 ** 31,
    i64: () => long(false),
    u64: () => long(true),
    f32: () => int(2 ** 32),
    f64: () => long(true),
    sf64: () => long(false),
    d: () => [0, -0.5, 1e300, -1, Math.PI][int(5)],
    ds: () => some(() => random() * 1000 - 500),
    fs: () => some(() => long(true)),
    us: () => some(() => long(true)),
    zs: () => some(() => int(2 ** 32) - 2 ** 31),
    names: () => some(() => `n${int(100)}`),
    is: () => some(() => long(false)),
    child: () => randomSample(random, depth + 1),
    children: () => some(() => randomSample(random, depth + 1)),
    extra: () => "skipped",
  };
  const sample: Record<string, unknown> = {};
  for (const [key, make] of Object.entries(values)) {
    if ((key === "child" || key === "children") && depth >= 2) continue;
    if (random() < 0.6) sample[key] = make();
  }
  return sample;
}

/** A field's tag as bytes (a varint: two bytes from field 16 on). */
function tag(no: number, wireType: number): number[] {
  const value = (no << 3) | wireType;
  return value < 0x80 ? [value] : [(value & 0x7f) | 0x80, value >>> 7];
}

function encode(type: protobuf.Type, object: Record<string, unknown>): Uint8Array {
  return type.encode(type.fromObject(object)).finish();
}

describe("protobuf message reader (by descriptor)", () => {
  it("reads 600 random messages as protobufjs does, packed and unpacked, with unknown fields skipped", () => {
    const random = seededRandom(20261125);
    for (let i = 0; i < 600; i++) {
      const type = i % 2 === 0 ? PACKED : UNPACKED;
      const body = encode(type, randomSample(random, 0));
      expect(read(body), `message ${i}`).to.deep.equal(reference(type, body));
    }
  });

  it("takes one repeated field's elements packed and unpacked in the same message, in order", () => {
    const packed = encode(PACKED, { us: [1, 2], zs: [-3] });
    const unpacked = encode(UNPACKED, { us: [3], zs: [4, -5] });
    const both = Buffer.concat([packed, unpacked, packed]);
    expect(read(both)).to.deep.equal({ us: ["1", "2", "3", "1", "2"], zs: ["-3", "4", "-5", "-3"] });
    expect(read(both)).to.deep.equal(reference(PACKED, both));
  });

  it("keeps the last occurrence of a singular field, a nested message's included", () => {
    const body = Buffer.concat([
      encode(PACKED, { s: "first", child: { s: "a" } }),
      encode(PACKED, { s: "second", child: { u32: 7 } }),
    ]);
    // protobufjs merges the two children; the reader keeps the last one whole, as OTLP's did.
    expect(read(body)).to.deep.equal({ s: "second", child: { u32: "7" } });
  });

  it("refuses a known field sent with another wire type, naming its path", () => {
    const wrong = Buffer.from([(4 << 3) | 2, 1, 0x41]);
    expect(() => read(wrong)).to.throw(FieldError, /^u32: wire type 2 where 0 was expected$/);
    const nested = Buffer.concat([encode(PACKED, { children: [{}, {}] }), Buffer.from([...tag(18, 0), 1])]);
    expect(() => read(nested)).to.throw(FieldError, /^children\[2\]: wire type 0 where 2 was expected$/);
    // A string field cannot come packed.
    const names = Buffer.from([...tag(16, 0), 1]);
    expect(() => read(names)).to.throw(FieldError, /^names: wire type 0 where 2 was expected$/);
  });

  it("names the element an error inside a repeated message comes from", () => {
    const inner = encode(PACKED, { child: { s: "x" } });
    const bad = Buffer.from([...tag(17, 2), 3, (5 << 3) | 1, 0, 0]);
    const body = Buffer.concat([
      encode(PACKED, { children: [{}, { s: "ok" }] }),
      Buffer.from([...tag(18, 2), inner.length + bad.length]),
      inner,
      bad,
    ]);
    expect(() => read(body)).to.throw(FieldError, /^children\[2\]\.child\.z32: wire type 1 where 0 was expected$/);
  });

  it("refuses a truncated body, a length past the end and a message running past its end", () => {
    const body = encode(PACKED, { s: "hello", child: { i64: 5 } });
    expect(() => read(body.subarray(0, body.length - 1))).to.throw(RangeError);
    expect(() => read(Buffer.from([(1 << 3) | 2, 10, 0x61]))).to.throw(RangeError, /index out of range/);
    // A child of 2 bytes whose field (a fixed64) runs past them.
    expect(() => read(Buffer.from([...tag(17, 2), 2, (9 << 3) | 1, 0, 1, 2, 3, 4, 5, 6, 7]))).to.throw(
      RangeError,
      /ran past its message's end/,
    );
  });
});

describe("protobuf message reader, deferred fields", () => {
  interface Entry {
    head: string;
    items: string[];
  }
  const HEAD: MessageType<{ s: string }, string, Entry> = {
    name: "Head",
    fields: [
      scalarField(1, "s", SCALAR.string, (state: { s: string }, s) => {
        state.s = s;
      }),
    ],
    open: () => ({ s: "" }),
    close: (state) => state.s,
  };
  const ITEM: MessageType<{ s: string; head: string }, string, Entry> = {
    name: "Item",
    fields: [
      scalarField(1, "s", SCALAR.string, (state: { s: string; head: string }, s) => {
        state.s = s;
      }),
    ],
    // An item sees its entry's head, whatever the order they came in.
    open: (entry) => ({ s: "", head: entry.head }),
    close: (state) => `${state.head}/${state.s}`,
  };
  const ENTRY: MessageType<Entry, Entry, null> = {
    name: "Entry",
    fields: [
      messageField(
        1,
        "head",
        HEAD,
        (entry: Entry, head) => {
          entry.head = head;
        },
        { deferred: true },
      ),
      repeatedMessageField(2, "items", ITEM, (entry: Entry, item) => entry.items.push(item), { deferred: true }),
    ],
    open: () => ({ head: "none", items: [] }),
    close: (entry) => entry,
  };
  const part = (s: string) => [(1 << 3) | 2, s.length, ...Buffer.from(s)];
  const field = (no: number, content: number[]) => [(no << 3) | 2, content.length, ...content];

  it("reads deferred fields after the others: the last head first, then every item in order", () => {
    const body = Buffer.from([
      ...field(2, part("a")),
      ...field(1, part("old")),
      ...field(2, part("b")),
      ...field(1, part("new")),
    ]);
    expect(readMessage(new WireReader(body), ENTRY, null)).to.deep.equal({ head: "new", items: ["new/a", "new/b"] });
  });

  it("reads an absent deferred message as an empty one, and names errors in it", () => {
    expect(readMessage(new WireReader(Buffer.from(field(2, part("x")))), ENTRY, null).items).to.deep.equal(["/x"]);
    const badHead = Buffer.from(field(1, [(1 << 3) | 0, 1]));
    expect(() => readMessage(new WireReader(badHead), ENTRY, null)).to.throw(
      FieldError,
      /^head\.s: wire type 0 where 2 was expected$/,
    );
    const badItem = Buffer.from([...field(2, part("x")), ...field(2, [(1 << 3) | 5, 0, 0, 0, 0])]);
    expect(() => readMessage(new WireReader(badItem), ENTRY, null)).to.throw(
      FieldError,
      /^items\[1\]\.s: wire type 5 where 2 was expected$/,
    );
  });
});

describe("protobuf message reader, fields read in runs", () => {
  const SCHEMA_RUNS = `
  syntax = "proto3";
  message Item { string s = 1; }
  message Holder { repeated Item items = 1; uint32 x = 2; }
  `;
  const runsRoot = protobuf.parse(SCHEMA_RUNS, { keepCase: true }).root;
  const ITEM_TYPE = runsRoot.lookupType("Item");

  interface Held {
    items: string[];
    x: number;
  }
  const ITEM: MessageType<{ s: string }, string, Held> = {
    name: "Item",
    fields: [
      scalarField(1, "s", SCALAR.string, (state: { s: string }, s: string) => {
        state.s = s;
      }),
    ],
    open: () => ({ s: "" }),
    close: (state) => state.s,
  };

  /**
   * A recall that notes what it is offered and what reading cost, and recalls the runs `known`
   * holds as their items at their cost (`always`: what it answers for every run, known or not).
   */
  function holderType(
    maxBytes: number,
    known: Map<string, { items: string[]; units: number }>,
    offered: (string | null)[],
    costs: number[] = [],
    always?: number,
  ) {
    const recall: RunRecall<Held> = {
      maxBytes,
      recall(state, offer) {
        const bytes = offer === null ? null : offer.body.toString("latin1", offer.start, offer.end);
        offered.push(bytes);
        if (always !== undefined) return always;
        const run = bytes === null ? undefined : known.get(bytes);
        if (run === undefined) return -1;
        state.items.push(...run.items.map((item) => `recalled ${item}`));
        return run.units;
      },
      read(_state, units) {
        costs.push(units);
      },
    };
    const type: MessageType<Held, Held, unknown> = {
      name: "Holder",
      fields: [
        repeatedMessageField(1, "items", ITEM, (state: Held, s: string) => state.items.push(s), {
          charge: 1,
          recall,
        }),
        scalarField(2, "x", SCALAR.uint32, (state: Held, x: number) => {
          state.x = x;
        }),
      ],
      open: () => ({ items: [], x: 0 }),
      close: (state) => state,
    };
    return type;
  }

  /** Field 1 holding an Item of `s`, tag included. */
  const item = (s: string) => Buffer.concat([Buffer.from([...tag(1, 2)]), lengthPrefixed(encode(ITEM_TYPE, { s }))]);
  const x = (value: number) => Buffer.from([...tag(2, 0), value]);
  function lengthPrefixed(bytes: Uint8Array): Buffer {
    return Buffer.concat([Buffer.from([bytes.length]), bytes]);
  }
  const latin1 = (...parts: Buffer[]) => Buffer.concat(parts).toString("latin1");

  it("offers each run's bytes once, from its first tag to its last element's end, and reads what is not recalled", () => {
    const offered: (string | null)[] = [];
    const body = Buffer.concat([item("a"), item("b"), x(7), item("c")]);
    const held = readMessage(new WireReader(body), holderType(4096, new Map(), offered), null);
    expect(held).to.deep.equal({ items: ["a", "b", "c"], x: 7 });
    expect(offered).to.deep.equal([latin1(item("a"), item("b")), latin1(item("c"))]);
  });

  it("tells what reading an offered run cost, and charges that when it skips the run", () => {
    const body = Buffer.concat([item("a"), item("b"), x(7), item("c")]);
    const costs: number[] = [];
    const read = (known: Map<string, { items: string[]; units: number }>) =>
      decodeWithin(Number.POSITIVE_INFINITY, () =>
        readMessage(new WireReader(body), holderType(4096, known, [], costs), null),
      );
    const plain = read(new Map());
    expect(costs).to.deep.equal([2, 1]);
    const recalled = read(new Map([[latin1(item("a"), item("b")), { items: ["a", "b"], units: 5 }]]));
    expect(recalled.result).to.deep.equal({ items: ["recalled a", "recalled b", "c"], x: 7 });
    expect(plain.values).to.equal(3);
    expect(recalled.values).to.equal(5 + 1);
  });

  it("reads a run offered without its bytes whatever recall answers", () => {
    const items = ["one", "two", "three"];
    const body = Buffer.concat(items.map(item));
    const offered: (string | null)[] = [];
    const held = readMessage(new WireReader(body), holderType(8, new Map(), offered, [], 0), null);
    expect(held.items).to.deep.equal(items);
    expect(offered).to.deep.equal([null]);
  });

  it("offers a run longer than maxBytes once, without its bytes, and reads all of it in order", () => {
    const offered: (string | null)[] = [];
    const items = ["one", "two", "three", "four", "five", "six"];
    const body = Buffer.concat([...items.map(item), x(1), item("seven")]);
    const held = readMessage(new WireReader(body), holderType(12, new Map(), offered), null);
    expect(held).to.deep.equal({ items: [...items, "seven"], x: 1 });
    expect(offered).to.deep.equal([null, latin1(item("seven"))]);
  });

  it("refuses broken wire data inside a run as it would be refused without runs", () => {
    const plainType: MessageType<Held, Held, unknown> = {
      ...holderType(4096, new Map(), []),
      fields: [repeatedMessageField(1, "items", ITEM, (state: Held, s: string) => state.items.push(s), { charge: 1 })],
    };
    const broken = [
      // The second element's length runs past the body.
      Buffer.concat([item("a"), Buffer.from([...tag(1, 2), 9, 0x0a])]),
      // The second element's string is not UTF-8.
      Buffer.concat([item("a"), Buffer.from([...tag(1, 2), 3, 0x0a, 1, 0xff])]),
      // The second element's field has the wrong wire type.
      Buffer.concat([item("a"), Buffer.from([...tag(1, 2), 2, 0x08, 1])]),
    ];
    for (const body of broken) {
      const error = (type: MessageType<Held, Held, unknown>) => {
        try {
          readMessage(new WireReader(body), type, null);
        } catch (caught) {
          return `${(caught as Error).constructor.name}: ${(caught as Error).message}`;
        }
        return "no error";
      };
      const offered: (string | null)[] = [];
      expect(error(holderType(4096, new Map(), offered)))
        .to.equal(error(plainType))
        .and.not.equal("no error");
    }
  });
});

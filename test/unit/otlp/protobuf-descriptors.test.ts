import { expect } from "chai";
import protobuf from "protobufjs";
import type { Field, MessageType, ScalarKind } from "../../../daemon/otlp/protobuf-descriptor.js";
import { LOGS_REQUEST } from "../../../daemon/otlp/protobuf-logs.js";
import { METRICS_REQUEST } from "../../../daemon/otlp/protobuf-metrics.js";
import { TRACE_REQUEST } from "../../../daemon/otlp/protobuf-traces.js";
import { metricsTypes } from "../../helpers/otlp-metrics-protobuf.js";
import { otlpTypes } from "../../helpers/otlp-protobuf.js";

type AnyType = MessageType<unknown, unknown, unknown>;

/** Fields of the vendored definitions the collector does not keep, so its descriptors leave them out. */
const NOT_READ: Record<string, string[]> = {
  "opentelemetry.proto.resource.v1.Resource": ["entityRefs"],
};

/** The scalar kinds a .proto type may be read as (bytes: base64 text, or a hex id). */
const KINDS_OF: Record<string, ScalarKind[]> = {
  string: ["string"],
  bytes: ["bytes", "id"],
  bool: ["bool"],
  uint32: ["uint32"],
  sint32: ["sint32"],
  int64: ["int64"],
  uint64: ["uint64"],
  fixed32: ["fixed32"],
  fixed64: ["fixed64"],
  sfixed64: ["sfixed64"],
  double: ["double"],
};

/** Every message type reachable from `root`, each once (AnyValue and KeyValue come in variants). */
function reachable(root: AnyType): AnyType[] {
  const seen = new Set<AnyType>();
  const visit = (type: AnyType) => {
    if (seen.has(type)) return;
    seen.add(type);
    for (const field of type.fields as readonly Field<unknown>[]) if (field.kind === "message") visit(field.type());
  };
  visit(root);
  return [...seen];
}

describe("OTLP/protobuf descriptors", () => {
  for (const [signal, request, root] of [
    ["traces", TRACE_REQUEST, otlpTypes.traceRequest.root],
    ["logs", LOGS_REQUEST, otlpTypes.traceRequest.root],
    ["metrics", METRICS_REQUEST, metricsTypes.root],
  ] as const) {
    it(`match the vendored .proto definitions, field by field (${signal})`, () => {
      const types = reachable(request as unknown as AnyType);
      expect(types.length).to.be.above(8);
      for (const type of types) {
        const proto = root.lookupType(type.name);
        const read = new Set<number>();
        for (const field of type.fields as readonly Field<unknown>[]) {
          const where = `${type.name}.${field.name}`;
          const definition = proto.fieldsById[field.no];
          expect(definition, `${where}: no field ${field.no} in the .proto`).to.not.equal(undefined);
          if (definition === undefined) continue;
          expect(definition.name, where).to.equal(field.name);
          expect(definition.repeated, `${where} repeated`).to.equal(field.repeated);
          definition.resolve();
          if (field.kind === "message") {
            expect(definition.resolvedType, where).to.be.instanceOf(protobuf.Type);
            expect(definition.resolvedType?.fullName, where).to.equal(`.${field.type().name}`);
          } else if (definition.resolvedType instanceof protobuf.Enum) {
            expect(field.scalar.kind, `${where} (an enum)`).to.equal("uint32");
          } else {
            expect(KINDS_OF[definition.type] ?? [], `${where} (${definition.type})`).to.include(field.scalar.kind);
          }
          read.add(field.no);
        }
        const left = proto.fieldsArray.filter((field) => !read.has(field.id)).map((field) => field.name);
        expect(left, `${type.name}: fields the descriptor leaves out`).to.deep.equal(NOT_READ[type.name] ?? []);
      }
    });
  }
});

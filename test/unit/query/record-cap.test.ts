import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { MAX_VALUE_BYTES } from "../../../daemon/query/value-cap.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { hexId } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const T0 = 1_700_000_000_000_000_000n;
/** 100 KB of text, named so that a failure says which field came back whole. */
const big = (field: string) => `${field}:${"x".repeat(100_000)}`;
const bigValue = (field: string) => ({ stringValue: big(field) });

/** Every string in a JSON-like value with its path, longest first. */
function texts(value: unknown, path = "$"): [string, number][] {
  if (typeof value === "string") return [[path, Buffer.byteLength(value)]];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) => texts(v, `${path}.${key}`));
}

/** The strings longer than the cap and its marker allow. */
function uncut(value: unknown): string[] {
  return texts(value)
    .filter(([, bytes]) => bytes > MAX_VALUE_BYTES + 100)
    .map(([path, bytes]) => `${path} (${bytes} bytes)`);
}

describe("texts in answers", () => {
  it("cut every text a span, log or trace summary carries at the value cap, as attribute values are", () => {
    const store = testStore();
    const traceId = hexId(1, 16);
    const spanId = hexId(1, 8);
    const resource = {
      attributes: [
        { key: "service.name", value: { stringValue: "svc" } },
        { key: "resource.big", value: bigValue("resource attribute") },
      ],
      schemaUrl: big("resource schema url"),
    };
    const scope = {
      name: big("scope name"),
      version: big("scope version"),
      attributes: [{ key: "scope.big", value: bigValue("scope attribute") }],
    };
    try {
      store.writeTraces({
        resourceSpans: [
          {
            resource,
            scopeSpans: [
              {
                scope,
                schemaUrl: big("scope schema url"),
                spans: [
                  {
                    traceId,
                    spanId,
                    name: big("span name"),
                    kind: 2,
                    startTimeUnixNano: T0.toString(),
                    endTimeUnixNano: (T0 + MS).toString(),
                    traceState: big("trace state"),
                    attributes: [{ key: "span.big", value: bigValue("span attribute") }],
                    events: [
                      {
                        name: big("event name"),
                        timeUnixNano: T0.toString(),
                        attributes: [{ key: "event.big", value: bigValue("event attribute") }],
                      },
                    ],
                    links: [
                      {
                        traceId: hexId(2, 16),
                        spanId: hexId(2, 8),
                        traceState: big("link trace state"),
                        attributes: [{ key: "link.big", value: bigValue("link attribute") }],
                      },
                    ],
                    status: { code: 2, message: big("status message") },
                  },
                ],
              },
            ],
          },
        ],
      });
      store.writeLogs({
        resourceLogs: [
          {
            resource,
            scopeLogs: [
              {
                scope,
                logRecords: [
                  {
                    timeUnixNano: T0.toString(),
                    severityNumber: 9,
                    severityText: big("severity text"),
                    eventName: big("event name"),
                    body: bigValue("body"),
                    attributes: [{ key: "log.big", value: bigValue("log attribute") }],
                    traceId,
                    spanId,
                  },
                ],
              },
            ],
          },
        ],
      });
      const db = openReadConnection(store.path);
      try {
        const reader = new SqliteReader(db);
        const page = { fromNs: T0 - MS, toNs: T0 + MS, limit: 10 };
        const answers = {
          span: reader.span(spanId),
          search: reader.spans({ attrs: [], attrContains: [], page }).items,
          trace: reader.trace(traceId),
          traces: reader.traces({ attrs: [], page }).items,
          logs: reader.logs({ attrs: [], attrContains: [], page }).items,
        };
        expect(answers.span).to.have.length(1);
        expect(answers.logs).to.have.length(1);
        expect(uncut(answers)).to.deep.equal([]);
        // Cut as values are: the start of the text, then the marker.
        expect(answers.span[0]?.status.message).to.match(/^status message:x+… \[cut by obs: 100015 bytes/);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });
});

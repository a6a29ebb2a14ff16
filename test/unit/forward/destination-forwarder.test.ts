import Database from "better-sqlite3";
import { expect } from "chai";
import { DestinationForwarder } from "../../../daemon/forward/destination-forwarder.js";
import { jsonToProtobuf } from "../../../daemon/forward/otlp-encoding.js";
import type { OtlpSender } from "../../../daemon/forward/otlp-sender.js";
import { OutboxReader } from "../../../daemon/forward/outbox-reader.js";
import type { SendOutcome } from "../../../daemon/forward/retry-policy.js";
import { ForwardOutbox, type ForwardProgress, OUTBOX_FORMAT } from "../../../daemon/store/forward-outbox.js";
import { migrate } from "../../../daemon/store/schema.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";

const URL = "http://upstream.test";

/** A request of `spans` spans named `name`, as the outbox keeps a protobuf one. */
function request(n: number, spans: number, name = "op"): Uint8Array {
  const body = traceRequest(
    "svc",
    Array.from({ length: spans }, (_, i) => ({
      traceId: hexId(n, 16),
      spanId: hexId(n * 100 + i, 8),
      name,
      startNs: 1_700_000_000_000_000_000n,
    })),
  );
  return jsonToProtobuf("traces", Buffer.from(JSON.stringify(body)));
}

/**
 * An outbox holding `requests` (spans per request, and whether it is "poison"), one forwarder
 * over it with a stand-in sender, run for one round: its progress, the sends, the log lines.
 */
async function oneRound(
  requests: { spans: number; poison?: boolean }[],
  answer: (body: Buffer, call: number) => SendOutcome,
  during: (outbox: ForwardOutbox) => void = () => {},
) {
  const db = new Database(":memory:");
  db.defaultSafeIntegers(true);
  migrate(db, ":memory:");
  const outbox = new ForwardOutbox(db, [URL]);
  for (const [i, { spans, poison }] of requests.entries()) {
    const body = request(i + 1, spans, poison ? "poison" : "op");
    outbox.append("traces", OUTBOX_FORMAT.protobuf, spans, BigInt(i + 1), body);
  }
  const sends: Buffer[] = [];
  const sender: OtlpSender = {
    async send(_signal, body) {
      sends.push(body);
      const outcome = answer(body, sends.length);
      if (sends.length === 1) during(outbox);
      return outcome;
    },
    close() {},
  };
  const notices: string[] = [];
  let progress: ForwardProgress | null = null;
  const forwarder = new DestinationForwarder({
    destination: { url: URL, protocol: "http/protobuf", headers: [] },
    reader: new OutboxReader(db),
    sender,
    pollMs: 1,
    backoff: { initialMs: 1, maxMs: 2, maxRetryAfterMs: 2 },
    onNotice: (line) => notices.push(line),
    onProgress: (p) => {
      progress = p;
      outbox.applyProgress([p]);
      forwarder.stop();
    },
  });
  await forwarder.run();
  const stored = new OutboxReader(db).destination(URL);
  db.close();
  return { progress: progress as ForwardProgress | null, sends, notices, stored };
}

const poisoned = (body: Buffer) => body.includes("poison");

describe("forwarding one destination", () => {
  it("drops a batch whole, with one line, when the refusal is about the destination (401)", async () => {
    const { sends, notices, stored } = await oneRound([{ spans: 3 }, { spans: 4 }, { spans: 5 }], () => ({
      kind: "permanent",
      reason: "HTTP 401",
      perRequest: false,
    }));
    expect(sends).to.have.length(1);
    expect(stored).to.include({ throughId: 3, sent: 0, dropped: 12 });
    expect(notices).to.deep.equal([`obsd: forwarding to ${URL} dropped 12 spans: HTTP 401`]);
  });

  it("splits a batch refused with 400 until only the offending request is dropped, said once", async () => {
    const { sends, notices, stored } = await oneRound(
      [{ spans: 3 }, { spans: 4, poison: true }, { spans: 5 }, { spans: 6 }],
      (body) => (poisoned(body) ? { kind: "permanent", reason: "HTTP 400", perRequest: true } : { kind: "ok" }),
    );
    expect(stored).to.include({ throughId: 4, sent: 14, dropped: 4 });
    expect(notices).to.deep.equal([`obsd: forwarding to ${URL} dropped 4 spans: HTTP 400`]);
    // [1-4] refused, [1-2] refused, [1] ok, [2] refused, [3-4] ok.
    expect(sends).to.have.length(5);
  });

  it("splits a batch that keeps timing out, so requests the path can carry are delivered", async () => {
    const { sends, stored } = await oneRound([{ spans: 2 }, { spans: 2 }], (body) =>
      body.length > request(1, 2).length + 10
        ? { kind: "retry", reason: "no answer within 10 s", retryAfterMs: null, timedOut: true }
        : { kind: "ok" },
    );
    expect(stored).to.include({ throughId: 2, sent: 4, dropped: 0, retried: 3 });
    expect(sends).to.have.length(5);
  });

  it("moves on when retention deletes the round it is retrying, counting it dropped once", async () => {
    const { progress, stored } = await oneRound(
      [{ spans: 3 }, { spans: 4 }],
      () => ({ kind: "retry", reason: "HTTP 503", retryAfterMs: null }),
      (outbox) => outbox.trimOldest(10),
    );
    expect(progress?.throughId).to.equal(2);
    expect(progress?.rows).to.deep.equal([]);
    expect(stored).to.include({ throughId: 2, sent: 0, dropped: 7 });
  });
});

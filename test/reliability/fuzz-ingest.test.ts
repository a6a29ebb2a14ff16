/**
 * Fuzzing, the fast subset (bench/fuzz.ts runs the long one): mutated and random OTLP payloads
 * against the decoders and a live collector. A decoder either decodes or refuses with a
 * PayloadError (400); anything else would be a 500 or a crash. The collector answers only
 * 200, 400, 413 or 415 and stays up.
 */
import { gzipSync } from "node:zlib";
import { expect } from "chai";
import { decodeLogRequest, decodeTraceRequest } from "../../daemon/otlp/decode-request.js";
import { PayloadError } from "../../daemon/otlp/payload-error.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { fuzzPayloads, protobufOf, seededRandom, seedObject } from "../helpers/fuzz-payloads.js";
import { http } from "../helpers/http.js";

const SEED = Number(process.env.OBS_FUZZ_SEED ?? 20261122);
const DECODER_CASES = Number(process.env.OBS_FUZZ_DECODER_CASES ?? 3000);
const HTTP_CASES = Number(process.env.OBS_FUZZ_HTTP_CASES ?? 400);

describe("fuzzing OTLP ingestion (fast subset)", function () {
  this.timeout(120_000);

  it("the seeds themselves decode, in both encodings", () => {
    expect(decodeTraceRequest(protobufOf("traces", seedObject("traces")), "protobuf").spans).to.have.length.above(0);
    expect(decodeLogRequest(protobufOf("logs", seedObject("logs")), "protobuf").logs).to.have.length.above(0);
  });

  it(`decoders decode or refuse with PayloadError on ${DECODER_CASES} mutated payloads (seed ${SEED})`, () => {
    let refused = 0;
    for (const payload of fuzzPayloads(SEED, DECODER_CASES)) {
      try {
        if (payload.signal === "traces") decodeTraceRequest(payload.body, payload.format);
        else decodeLogRequest(payload.body, payload.format);
      } catch (error) {
        if (!(error instanceof PayloadError)) {
          expect.fail(`${payload.signal} ${payload.recipe}: ${(error as Error).stack}`);
        }
        refused++;
      }
    }
    // Most mutations break the payload; some leave it valid. Both kinds must occur.
    expect(refused).to.be.above(DECODER_CASES / 10);
    expect(refused).to.be.below(DECODER_CASES);
  });

  describe("against a live collector", () => {
    let obsd: CollectorProcess;
    before(async () => {
      // The seeds are the spec's 2018 samples: keep them past retention so they reach the store.
      obsd = await startCollectorProcess({ args: ["--retention", "36500d"] });
    });
    after(async () => {
      await obsd.stop();
    });

    it(`answers only 200, 400, 413 or 415 to ${HTTP_CASES} mutated requests and stays healthy`, async () => {
      const random = seededRandom(SEED + 1);
      const statuses = new Map<number, number>();
      const CONTENT_TYPES = [
        "application/json",
        "application/x-protobuf",
        "text/plain",
        "application/json; charset=utf-8",
      ];
      for (const payload of fuzzPayloads(SEED + 1, HTTP_CASES)) {
        const matching = payload.format === "json" ? "application/json" : "application/x-protobuf";
        const contentType = random() < 0.9 ? matching : (CONTENT_TYPES[Math.floor(random() * 4)] as string);
        const gzip = random() < 0.3;
        const res = await http(`${obsd.url}/v1/${payload.signal}`, {
          method: "POST",
          headers: { "content-type": contentType, ...(gzip ? { "content-encoding": "gzip" } : {}) },
          body: gzip ? gzipSync(payload.body) : payload.body,
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (![200, 400, 413, 415].includes(res.status)) {
          expect.fail(
            `${payload.signal} ${payload.recipe} (${contentType}${gzip ? ", gzip" : ""}): ${res.status} ${res.body}`,
          );
        }
      }
      expect(statuses.get(200)).to.be.above(0);
      expect(statuses.get(400)).to.be.above(0);
      const health = await http(`${obsd.url}/api/health`);
      expect(health.status).to.equal(200);
      expect(health.json().status).to.equal("ok");
    });
  });
});

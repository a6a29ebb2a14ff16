import { expect } from "chai";
import { ServiceActivity } from "../../../daemon/query/service-activity.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { seededRandom as random } from "../../helpers/fuzz-payloads.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { hexId, logsRequest, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const T0 = 1_700_000_000_000_000_000n;

describe("service activity", () => {
  it("finds each service's newest span, log or metric point time in any window, as the rows say", () => {
    const store = testStore();
    const next = random(11);
    try {
      // Seven services over three hours: spans, logs and metric points at random times, a few
      // dated later than any window below ends, one service with logs only, one with metrics only.
      let n = 0;
      for (let batch = 0; batch < 30; batch++) {
        const service = `svc${batch % 6}`;
        const at = () => T0 + BigInt(Math.floor(next() * 10_800_000)) * MS + BigInt(Math.floor(next() * 1e6));
        if (batch % 6 !== 5) {
          const spans: SpanSpec[] = Array.from({ length: 20 }, () => {
            n++;
            return { traceId: hexId(n, 16), spanId: hexId(n, 8), startNs: at() };
          });
          store.writeTraces(traceRequest(service, spans));
        }
        store.writeLogs(
          logsRequest(service, [
            { timeNs: at(), body: `b${batch}` },
            { timeNs: at(), body: `c${batch}` },
          ]),
        );
        if (batch % 3 === 0) {
          const points = [0, 1, 2].map((k) =>
            metricPoint({ timeNs: at(), value: k + batch, attributes: JSON.stringify({ k: String(k) }) }),
          );
          const owner = batch % 2 === 0 ? service : "metrics-only";
          store.writer.transaction(() => store.writer.writeMetrics(metricBatch(owner, points), 0n));
        }
      }
      const db = openReadConnection(store.path);
      try {
        const activity = new ServiceActivity(db);
        const expected = (fromNs: bigint, toNs: bigint) => {
          const rows = db
            .prepare(
              `SELECT service_id, max(t) FROM (
                 SELECT service_id, start_ns AS t FROM spans WHERE start_ns BETWEEN ? AND ?
                 UNION ALL SELECT service_id, ts_ns FROM logs WHERE ts_ns BETWEEN ? AND ?
                 UNION ALL SELECT s.service_id, p.time_ns FROM metric_points p JOIN metric_series s ON s.id = p.series_id
                   WHERE p.time_ns BETWEEN ? AND ?)
               GROUP BY service_id`,
            )
            .raw()
            .all(fromNs, toNs, fromNs, toNs, fromNs, toNs) as [bigint, bigint][];
          return new Map(rows.map(([id, ns]) => [Number(id), ns]));
        };
        for (let i = 0; i < 200; i++) {
          const fromNs = T0 + BigInt(Math.floor(next() * 10_800_000)) * MS + BigInt(Math.floor(next() * 1e6));
          // Half the windows are short (up to 3 minutes), so services are often absent from them.
          const lengthMs = i % 2 === 0 ? 5_400_000 : 180_000;
          const toNs = fromNs + BigInt(Math.floor(next() * lengthMs)) * MS + BigInt(Math.floor(next() * 1e6));
          expect(activity.newest(fromNs, toNs), `${fromNs}..${toNs}`).to.deep.equal(expected(fromNs, toNs));
        }
        // A window ending at the last instant a store holds (the audit's largest `until`).
        const last = 2n ** 63n - 1n;
        expect(activity.newest(T0, last)).to.deep.equal(expected(T0, last));
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });
});

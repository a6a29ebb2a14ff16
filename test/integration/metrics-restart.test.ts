import Database from "better-sqlite3";
import { expect } from "chai";
import { nsToIso } from "../../shared/time.js";
import { startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { tempDir } from "../helpers/temp-dir.js";

const MS = 1_000_000n;
const S = 1000n * MS;

const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** One export of a cumulative counter: one point, as an SDK sends every interval. */
function counterExport(point: { timeNs: bigint; startNs: bigint; value: number; route?: string }) {
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attr("service.name", "agent")] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: "agent.requests",
                unit: "{request}",
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: [
                    {
                      attributes: point.route === undefined ? [] : [attr("route", point.route)],
                      startTimeUnixNano: String(point.startNs),
                      timeUnixNano: String(point.timeNs),
                      asInt: String(point.value),
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

describe("metrics through a collector killed with SIGKILL (obsd over HTTP)", function () {
  this.timeout(60_000);

  it("answers from its stored points the open minute a killed collector held unwritten", async () => {
    const state = tempDir("obs-it-");
    try {
      const first = await startCollectorProcess({ stateDir: state.path });
      // Every 10 s for two and a half minutes, up to a few seconds ago; the counter started
      // before the collector, so its first point is its baseline.
      const baseNs = BigInt(Date.now()) * MS - 150n * S;
      const points = Array.from({ length: 15 }, (_, k) => ({
        timeNs: baseNs + BigInt(10 * k) * S,
        startNs: baseNs - 60n * S,
        value: 7 * (k + 1) + (k % 3),
      }));
      try {
        for (const point of points) {
          const answer = await postJson(`${first.url}/v1/metrics`, counterExport(point));
          expect(answer.status, answer.body.toString()).to.equal(200);
        }
      } finally {
        // No query first: nothing asked the writer to write the minute it holds.
        await first.stop("SIGKILL");
      }

      const second = await startCollectorProcess({ stateDir: state.path });
      try {
        const increases = points.map((p, i) => ({
          timeNs: p.timeNs,
          increase: i === 0 ? 0 : p.value - (points[i - 1] as { value: number }).value,
        }));
        // From the points (10 s) and from the minutes' rows (1 m): the points of the minute it
        // held were in its journal only, and that minute's row not written at all.
        for (const [step, stepNs] of [
          ["10s", 10n * S],
          ["1m", 60n * S],
        ] as const) {
          const answer = await http(`${second.url}/api/metrics/series?name=agent.requests&agg=increase&step=${step}`);
          expect(answer.status, answer.body.toString()).to.equal(200);
          const { data } = answer.json();
          const expected = (data.buckets as string[]).map((bucket) => {
            const start = BigInt(Date.parse(bucket)) * MS;
            const inside = increases.filter((p) => p.timeNs >= start && p.timeNs < start + stepNs);
            return inside.length === 0 ? null : inside.reduce((sum, p) => sum + p.increase, 0);
          });
          expect(data.groups[0].values, step).to.deep.equal(expected);
        }
        const listed = (await http(`${second.url}/api/metrics`)).json();
        expect(listed.data[0].lastTime).to.equal(nsToIso((points.at(-1) as { timeNs: bigint }).timeNs));
      } finally {
        await second.stop();
      }
    } finally {
      state.cleanup();
    }
  });

  it("brings back no point retention deleted before the kill, and counts the points it has", async () => {
    const state = tempDir("obs-it-");
    try {
      // /b's point, in the current minute, is held from the journal's first row on, so the rows
      // of /a's five points of the minute before stay in the journal after they are written for
      // retention, which deletes them one a second a few seconds after they are sent. The
      // retention window is chosen to make that so whatever the clock says.
      const nowNs = BigInt(Date.now()) * MS;
      const minuteNs = 60n * S;
      const minute = ((nowNs - minuteNs) / minuteNs) * minuteNs;
      const oldNs = minute + 5n * S;
      const retention = `${(nowNs - oldNs) / S + 4n}s`;
      const sent = [
        { route: "/b", timeNs: minute + minuteNs + S },
        ...[0, 1, 2, 3, 4].map((k) => ({ route: "/a", timeNs: oldNs + BigInt(k) * S })),
      ];
      const first = await startCollectorProcess({
        stateDir: state.path,
        args: ["--retention", retention, "--retention-interval", "200ms"],
      });
      // Read from the file: a query would have the writer write what it holds, and empty its journal.
      const stored = (sql: string) => {
        const db = new Database(first.dbPath, { readonly: true });
        try {
          return Number(db.prepare(sql).pluck().get());
        } finally {
          db.close();
        }
      };
      const counted = () => stored("SELECT value FROM counters WHERE name = 'points'");
      try {
        for (const [i, { route, timeNs }] of sent.entries()) {
          const request = counterExport({ route, timeNs, startNs: oldNs - minuteNs, value: i + 1 });
          const answer = await postJson(`${first.url}/v1/metrics`, request);
          expect(answer.status, answer.body.toString()).to.equal(200);
        }
        // Killed once two of /a's points are gone, three left.
        const deadline = Date.now() + 30_000;
        while (counted() > 4) {
          expect(Date.now() < deadline, "retention did not delete the old points").to.equal(true);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await first.stop("SIGKILL");
      }
      const left = counted();
      expect(left).to.be.within(2, 4);

      // Retention's next pass is ten seconds on: the journal is replayed at the start, and no more.
      const second = await startCollectorProcess({ stateDir: state.path, args: ["--retention", retention] });
      try {
        expect((await http(`${second.url}/api/health`)).json().counts.points).to.equal(left);
      } finally {
        await second.stop();
      }
      expect(stored("SELECT count(*) FROM metric_points")).to.equal(left);
    } finally {
      state.cleanup();
    }
  });
});

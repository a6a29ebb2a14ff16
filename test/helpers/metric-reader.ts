import { SqliteReader } from "../../daemon/query/sqlite-reader.js";
import type { MetricBucketQuery, MetricGroupValues } from "../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../daemon/store/connection.js";
import { type TestStore, testStore } from "./store.js";

/** A test store with metrics in it, and a reader on a read connection of it, as queries read. */
export interface MetricReadStore {
  store: TestStore;
  reader: SqliteReader;
  close(): void;
}

/**
 * A store whose collector started at `collectorStartNs`, that `fill` writes into; then what
 * its writer holds is written (as a query has it written first) and a reader opened.
 */
export function metricReadStore(collectorStartNs: bigint, fill: (store: TestStore) => void): MetricReadStore {
  const store = testStore(0, collectorStartNs);
  try {
    fill(store);
    store.writer.writeHeld();
    const readDb = openReadConnection(store.path);
    return {
      store,
      reader: new SqliteReader(readDb),
      close() {
        readDb.close();
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

/** The one group of metric `name`'s ungrouped, unfiltered buckets over [fromNs, toNs] (undefined: none). */
export function onlyGroup(
  reader: SqliteReader,
  name: string,
  query: Pick<MetricBucketQuery, "agg" | "fromNs" | "toNs" | "stepMs" | "source">,
): MetricGroupValues | undefined {
  const [group] = reader.metricBuckets({
    metric: reader.metricIdentities(name)[0]!,
    attrs: [],
    groupBy: [],
    ...query,
  });
  return group;
}

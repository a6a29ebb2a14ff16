import { expect } from "chai";
import { ROLLUP_COLUMNS } from "../../../daemon/store/metric-rollup-store.js";
import { testStore } from "../../helpers/store.js";

describe("metric rollup store", () => {
  it("writes every column of metric_rollups, so that replacing a row of the same key is the whole upsert", () => {
    const store = testStore();
    try {
      const columns = store.db
        .prepare("SELECT name FROM pragma_table_info('metric_rollups') ORDER BY cid")
        .pluck()
        .all() as string[];
      expect([...ROLLUP_COLUMNS].sort()).to.deep.equal([...columns].sort());
      expect(columns).to.have.length(16);
    } finally {
      store.close();
    }
  });
});

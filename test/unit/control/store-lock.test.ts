import { join } from "node:path";
import { expect } from "chai";
import lockfile from "proper-lockfile";
import { lockStore } from "../../../daemon/control/store-lock.js";
import { StoreOpenError } from "../../../daemon/store/store-errors.js";
import { privateLockFs } from "../../../shared/state-dir.js";
import { tempDir } from "../../helpers/temp-dir.js";

describe("store lock", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  type Mkdir = (path: string, callback: (error: NodeJS.ErrnoException | null) => void) => void;

  /** The lock file system, its mkdir failing as a folder this user cannot write makes it fail, for `which` lock. */
  const unwritable = (which: RegExp): Record<string, unknown> => ({
    ...privateLockFs,
    mkdir: ((path, callback) => {
      if (!which.test(path)) return (privateLockFs.mkdir as Mkdir)(path, callback);
      callback(Object.assign(new Error(`EACCES: permission denied, mkdir '${path}'`), { code: "EACCES" }));
    }) satisfies Mkdir,
  });

  for (const [lock, which] of [
    ["start lock", /\.start\.lock$/],
    ["lock", /\.sqlite\.lock$/],
  ] as const) {
    it(`refuses at once, as a store it cannot open, a store whose ${lock} it cannot make`, async () => {
      const dbPath = join(dir.path, "t.sqlite");
      const started = Date.now();
      const error = await lockStore(dbPath, dir.path, () => {}, unwritable(which)).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(StoreOpenError);
      expect((error as Error).message).to.match(new RegExp(`^cannot lock ${dbPath}, .*: EACCES: permission denied`));
      expect(Date.now() - started).to.be.below(2000);
    });
  }

  it("waits for the start lock another start holds, and takes the store once it is released", async () => {
    const dbPath = join(dir.path, "t.sqlite");
    const first = await lockStore(dbPath, dir.path, () => {});
    await first.release();
    const releaseStart = await lockfile.lock(`${dbPath}.start`, { realpath: false });
    setTimeout(() => void releaseStart(), 300);
    const second = await lockStore(dbPath, dir.path, () => {});
    await second.release();
  });
});

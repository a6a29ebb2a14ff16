import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import {
  folderTrustProblem,
  privateDirProblem,
  projectDbPath,
  StateDirError,
  stateDir,
} from "../../../shared/state-dir.js";
import { storeInUseMessage } from "../../../shared/store-owner.js";
import { tempDir } from "../../helpers/temp-dir.js";

describe("state folder rules", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it("trusts only a real folder of this user that nobody else can reach", () => {
    const own = join(dir.path, "own");
    mkdirSync(own, { mode: 0o700 });
    chmodSync(own, 0o700);
    expect(privateDirProblem(own)).to.equal(null);
    chmodSync(own, 0o750);
    expect(privateDirProblem(own)).to.equal("has mode 0750, so other users can reach it (it must be 0700)");
    chmodSync(own, 0o777);
    expect(privateDirProblem(own)).to.match(/^has mode 0777/);
    chmodSync(own, 0o700);
    symlinkSync(own, join(dir.path, "link"));
    expect(privateDirProblem(join(dir.path, "link"))).to.equal("is a symbolic link");
    writeFileSync(join(dir.path, "file"), "");
    expect(privateDirProblem(join(dir.path, "file"))).to.equal("is not a folder");
    expect(privateDirProblem(join(dir.path, "missing"))).to.equal("cannot be read (ENOENT)");
  });

  it("trusts a folder on the state folder's path only when no other user can change what lies in it", () => {
    const folder = (uid: number, mode: number, link = false) => ({ uid, mode, isSymbolicLink: () => link });
    expect(folderTrustProblem(folder(1000, 0o40700), 1000)).to.equal(null);
    expect(folderTrustProblem(folder(0, 0o40755), 1000)).to.equal(null);
    expect(folderTrustProblem(folder(0, 0o41777), 1000)).to.equal(null); // /tmp: sticky
    expect(folderTrustProblem(folder(1000, 0o40775), 1000)).to.equal(null); // a user-private group
    expect(folderTrustProblem(folder(1001, 0o40700), 1000)).to.equal("belongs to another user (uid 1001, not 1000)");
    expect(folderTrustProblem(folder(1001, 0o120777, true), 1000)).to.equal(
      "belongs to another user (uid 1001, not 1000)",
    );
    expect(folderTrustProblem(folder(1000, 0o120777, true), 1000)).to.equal(null); // a link's own mode means nothing
    expect(folderTrustProblem(folder(0, 0o40777), 1000)).to.equal(
      "can be written by every user (mode 0777) and has no sticky bit",
    );
  });

  it("takes an absolute OBS_STATE_DIR as given, refuses a relative one, and ignores a relative XDG_STATE_HOME", () => {
    expect(stateDir({ OBS_STATE_DIR: "/state" })).to.equal("/state");
    expect(() => stateDir({ OBS_STATE_DIR: "relstate" }))
      .to.throw(StateDirError)
      .with.property("message")
      .that.includes("OBS_STATE_DIR=relstate is a relative path");
    expect(() => stateDir({ OBS_STATE_DIR: "./state" })).to.throw(StateDirError);
    expect(stateDir({ XDG_STATE_HOME: "/xdg" })).to.equal("/xdg/obs");
    expect(stateDir({ XDG_STATE_HOME: "xdg" })).to.match(/\/\.local\/state\/obs$/);
  });

  it("names a project's store after its folder, the same for the same folder and apart for two of one name", () => {
    const env = { OBS_STATE_DIR: "/state" };
    const first = projectDbPath("/work/shop", env);
    expect(first).to.match(/^\/state\/projects\/shop-[0-9a-f]{8}\/telemetry\.sqlite$/);
    expect(projectDbPath("/work/shop/", env)).to.equal(first);
    expect(projectDbPath("/other/shop", env)).to.not.equal(first);
    expect(projectDbPath("/work/my shop", env)).to.match(/\/projects\/my_shop-[0-9a-f]{8}\//);
    expect(projectDbPath("/", env)).to.match(/\/projects\/root-[0-9a-f]{8}\//);
  });

  it("refuses a store in use naming its holder and the two ways out", () => {
    const message = storeInUseMessage("/s/telemetry.sqlite", {
      pid: 42,
      cwd: "/work/shop",
      port: 27700,
      baseUrl: "http://127.0.0.1:27700",
    });
    expect(message).to.include(
      "the store /s/telemetry.sqlite is in use by the collector started in /work/shop on port 27700, pid 42",
    );
    expect(message).to.include("--db PATH");
    expect(message).to.include("--project-store (also OBS_PROJECT_STORE=1)");
    expect(storeInUseMessage("/s/t.sqlite", { pid: 7, cwd: "/w", port: null, baseUrl: null })).to.include(
      "started in /w (still starting), pid 7",
    );
    expect(storeInUseMessage("/s/t.sqlite", null)).to.include("in use by another collector that is still starting");
  });
});

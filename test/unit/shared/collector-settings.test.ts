import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { resolveSettings, SettingsError } from "../../../shared/collector-settings.js";

describe("collector settings", () => {
  const env = { OBS_STATE_DIR: "/tmp/obs-state-test" };

  it("uses built-in defaults", () => {
    const { settings, sources } = resolveSettings({}, env);
    expect(settings).to.include({ host: "127.0.0.1", port: 27686, retentionMs: 7 * 86_400_000, maxDbBytes: 1024 ** 3 });
    expect(settings.maxBodyBytes).to.equal(16 * 1024 * 1024);
    expect(settings.dbPath).to.equal("/tmp/obs-state-test/monitor/telemetry.sqlite");
    expect(sources.host).to.equal("default");
  });

  it("prefers the flag over the environment over the default", () => {
    const withEnv = { ...env, OBS_MONITOR_HOST: "127.0.0.2", OBS_MONITOR_PORT: "4000", OBS_RETENTION: "2d" };
    const fromEnv = resolveSettings({}, withEnv);
    expect(fromEnv.settings).to.include({ host: "127.0.0.2", port: 4000, retentionMs: 2 * 86_400_000 });
    expect(fromEnv.sources).to.include({ host: "env", port: "env", retentionMs: "env" });
    const fromFlag = resolveSettings({ host: "127.0.0.3", port: "5000", db: "x.sqlite" }, withEnv);
    expect(fromFlag.settings).to.include({ host: "127.0.0.3", port: 5000 });
    expect(fromFlag.settings.dbPath).to.match(/\/x\.sqlite$/);
    expect(fromFlag.sources).to.include({ host: "flag", port: "flag", dbPath: "flag" });
  });

  it("binds an IPv6 address given in brackets, as the query commands take it", () => {
    expect(resolveSettings({ host: "[::1]" }, env).settings.host).to.equal("::1");
    expect(resolveSettings({}, { ...env, OBS_MONITOR_HOST: " [::] " }).settings.host).to.equal("::");
    expect(resolveSettings({ host: "::1" }, env).settings.host).to.equal("::1");
  });

  it("refuses bad values and names where they came from", () => {
    expect(() => resolveSettings({ port: "http" }, env)).to.throw(SettingsError, /invalid port "http" \(flag\)/);
    expect(() => resolveSettings({}, { ...env, OBS_MONITOR_PORT: "70000" })).to.throw(
      SettingsError,
      /OBS_MONITOR_PORT/,
    );
    expect(() => resolveSettings({ retention: "forever" }, env)).to.throw(SettingsError, /invalid duration/);
    expect(() => resolveSettings({}, { ...env, OBS_MAX_DB_SIZE: "big" })).to.throw(SettingsError, /OBS_MAX_DB_SIZE/);
  });

  it("refuses a flag given without a value, rather than using the environment's or the default in its place", () => {
    for (const flag of ["db", "host", "port", "retention", "maxDbSize", "maxBodySize"] as const) {
      const name = flag.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
      expect(() => resolveSettings({ [flag]: "" }, { ...env, OBS_MONITOR_PORT: "4000" }), flag).to.throw(
        SettingsError,
        `--${name} needs a value`,
      );
    }
  });

  it("refuses a --db that ends in a separator or names a folder: not the store's file", () => {
    for (const db of ["data/", "/tmp/obs/", "./"]) {
      expect(() => resolveSettings({ db }, env), db).to.throw(
        SettingsError,
        `--db ${db} names a folder; give the store's file, such as ${db}telemetry.sqlite`,
      );
    }
    const folder = mkdtempSync(join(tmpdir(), "obs-db-folder-"));
    try {
      for (const db of [folder, `${folder}/.`]) {
        expect(() => resolveSettings({ db }, env), db).to.throw(
          SettingsError,
          `--db ${db} names a folder; give the store's file, such as ${db}/telemetry.sqlite`,
        );
      }
    } finally {
      rmSync(folder, { recursive: true });
    }
  });

  it("puts the store under the state folder for --project-store or OBS_PROJECT_STORE=1, and not with --db", () => {
    const project = resolveSettings({ projectStore: true }, env, "/work/shop");
    expect(project.settings.dbPath).to.match(/^\/tmp\/obs-state-test\/projects\/shop-[0-9a-f]{8}\/telemetry\.sqlite$/);
    expect(project.sources.dbPath).to.equal("flag");
    const fromEnv = resolveSettings({}, { ...env, OBS_PROJECT_STORE: "1" }, "/work/shop");
    expect(fromEnv.settings.dbPath).to.equal(project.settings.dbPath);
    expect(fromEnv.sources.dbPath).to.equal("env");
    expect(resolveSettings({ db: "/x.sqlite" }, { ...env, OBS_PROJECT_STORE: "1" }).settings.dbPath).to.equal(
      "/x.sqlite",
    );
    expect(resolveSettings({}, { ...env, OBS_PROJECT_STORE: "0" }).sources.dbPath).to.equal("default");
    expect(() => resolveSettings({ db: "/x.sqlite", projectStore: true }, env)).to.throw(
      SettingsError,
      /--db or --project-store/,
    );
    expect(() => resolveSettings({}, { ...env, OBS_PROJECT_STORE: "yes please" })).to.throw(
      SettingsError,
      /OBS_PROJECT_STORE/,
    );
  });
});

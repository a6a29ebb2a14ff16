import { readFileSync } from "node:fs";
import { expect } from "chai";
import type { SetupResult } from "../../../../client/setup/setup-agentcli.js";
import { setupDocument, setupErrorDocument, setupSummary } from "../../../../client/setup/setup-document.js";
import { ERROR_EXIT_CODES } from "../../../../shared/cli-envelope.js";
import { packagePath } from "../../../../shared/package-root.js";
import { compileSchema } from "../../../helpers/schema-validator.js";

const schema = JSON.parse(readFileSync(packagePath("schemas", "setup", "setup.json"), "utf8")) as {
  definitions: { failure: { properties: { error: { properties: { code: { enum: string[] } } } } } };
};

const RESULT: SetupResult = {
  agent: { name: "agentcli", path: "/usr/bin/agentcli", version: "1.4.2" },
  settings: {
    path: "/home/u/.agentcli/settings.json",
    created: false,
    changed: true,
    backupPath: "/home/u/.agentcli/settings.json.bak",
    changes: [
      { key: "telemetry.enabled", before: { nested: "kept as found" }, after: true },
      { key: "mcpServers.obs.args", before: null, after: ["/src/obs/bin/obs.js", "mcp"] },
    ],
    skipped: [],
  },
  collector: {
    url: "http://127.0.0.1:27687",
    started: true,
    reused: false,
    pid: 42,
    port: 27687,
    dbPath: "/s/t.sqlite",
  },
  launcher: { savedUrlPath: "/s/agentcli/collector.json", changed: true },
  warnings: [],
};

describe("obs.setup/v1 document", () => {
  const validate = compileSchema(schema);

  it("validates against schemas/setup/setup.json, success and failure", () => {
    const document = setupDocument(RESULT, new Date("2026-11-22T10:00:00Z"));
    expect(validate(document), JSON.stringify(validate.errors)).to.equal(true);
    expect(document).to.deep.include({ schema_version: "obs.setup/v1", generated_at: "2026-11-22T10:00:00.000Z" });
    const failure = setupErrorDocument("invalid_argument", "agentcli was not found on PATH");
    expect(validate(failure), JSON.stringify(validate.errors)).to.equal(true);
    expect(validate({ ...document, error: { code: "internal", message: "x" } })).to.equal(false);
  });

  it("keeps the user's previous values as they were, keys included", () => {
    const document = setupDocument(RESULT) as { settings: { changes: { before: unknown }[] } };
    expect(document.settings.changes[0]?.before).to.deep.equal({ nested: "kept as found" });
  });

  it("shows a password in a previous value's URL as ***, so that an agent reading the document never gets it", () => {
    const withCredentials: SetupResult = {
      ...RESULT,
      settings: {
        ...RESULT.settings,
        changes: [
          { key: "telemetry.otlpEndpoint", before: "https://alice:VENDORTOKEN99@otlp.vendor.example:4318", after: "x" },
          { key: "telemetry.other", before: { urls: ["http://u:p%40ss@h/v1"], plain: "https://h/v1" }, after: true },
        ],
      },
    };
    const document = setupDocument(withCredentials) as { settings: { changes: { before: unknown }[] } };
    expect(JSON.stringify(document)).not.to.include("VENDORTOKEN99").and.not.to.include("p%40ss");
    expect(document.settings.changes.map((change) => change.before)).to.deep.equal([
      "https://alice:***@otlp.vendor.example:4318",
      { urls: ["http://u:***@h/v1"], plain: "https://h/v1" },
    ]);
  });

  it("lists every error code the CLI uses", () => {
    expect(schema.definitions.failure.properties.error.properties.code.enum).to.have.members(
      Object.keys(ERROR_EXIT_CODES),
    );
  });

  it("validates with a skipped MCP registration, and the summary says why", () => {
    const reason = '"mcpServers" in /home/u/.agentcli/settings.json is a string, not an object; obs left it unchanged';
    const skipping: SetupResult = {
      ...RESULT,
      settings: { ...RESULT.settings, changes: [], changed: false, skipped: [{ key: "mcpServers.obs", reason }] },
    };
    const document = setupDocument(skipping);
    expect(validate(document), JSON.stringify(validate.errors)).to.equal(true);
    expect(setupSummary(skipping).split("\n").slice(1, 3)).to.deep.equal([
      "/home/u/.agentcli/settings.json: telemetry already points at http://127.0.0.1:27687, unchanged",
      `not set mcpServers.obs: ${reason}`,
    ]);
  });

  it("summarises what changed and which collector is used", () => {
    expect(setupSummary(RESULT)).to.equal(
      [
        "agentcli 1.4.2 at /usr/bin/agentcli",
        'updated /home/u/.agentcli/settings.json: telemetry.enabled = true, mcpServers.obs.args = ["/src/obs/bin/obs.js","mcp"]\n  previous version kept as /home/u/.agentcli/settings.json.bak',
        "collector started at http://127.0.0.1:27687 (pid 42, database /s/t.sqlite)",
        "saved for obs agentcli in /s/agentcli/collector.json",
        "launch the agent with: obs agentcli [its arguments]",
      ].join("\n"),
    );
  });

  it("says when only the launcher's saved collector changed, not that nothing did", () => {
    const unchanged = {
      ...RESULT,
      settings: { ...RESULT.settings, changed: false, backupPath: null, changes: [] },
      collector: { ...RESULT.collector, started: false, reused: true },
    };
    expect(setupSummary(unchanged)).to.include("saved for obs agentcli in /s/agentcli/collector.json");
    expect(setupSummary({ ...unchanged, launcher: { ...unchanged.launcher, changed: false } })).not.to.include(
      "saved for obs agentcli",
    );
  });
});

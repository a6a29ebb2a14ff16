import { expect } from "chai";
import { parse } from "jsonc-parser";
import { applyMcpServerSettings } from "../../../../client/setup/mcp-server-settings.js";
import type { McpLaunch } from "../../../../client/setup/obs-mcp-command.js";

const LAUNCH: McpLaunch = { command: "/opt/node/bin/node", args: ["/src/obs/bin/obs.js", "mcp"] };
const CWD = "/home/u/project";
const FILE = "settings.json";

const COMMENTED = `// agentcli user settings
{
    "theme": "dark", // the only readable one
    "mcpServers": {
        // the issue tracker's server
        "tracker": { "httpUrl": "http://localhost:9000/mcp" }
    },
    "model": "large",
}
`;

describe("agentcli MCP server registration edit", () => {
  it("adds mcpServers.obs with the command, its arguments and the folder, beside the user's servers", () => {
    const { text, changes, skipped } = applyMcpServerSettings(COMMENTED, LAUNCH, CWD, FILE);
    const settings = parse(text);
    expect(settings.mcpServers).to.deep.equal({
      tracker: { httpUrl: "http://localhost:9000/mcp" },
      obs: { command: LAUNCH.command, args: LAUNCH.args, cwd: CWD },
    });
    expect(changes).to.deep.equal([
      { key: "mcpServers.obs.command", before: null, after: LAUNCH.command },
      { key: "mcpServers.obs.args", before: null, after: LAUNCH.args },
      { key: "mcpServers.obs.cwd", before: null, after: CWD },
    ]);
    expect(skipped).to.deep.equal([]);
    expect(text).to.include("// the issue tracker's server");
    expect(text.startsWith('// agentcli user settings\n{\n    "theme": "dark", // the only readable one\n')).to.equal(
      true,
    );
    expect(text.endsWith('    "model": "large",\n}\n')).to.equal(true);
  });

  it("changes nothing on a second run, and only what moved after that", () => {
    const once = applyMcpServerSettings(COMMENTED, LAUNCH, CWD, FILE).text;
    const twice = applyMcpServerSettings(once, LAUNCH, CWD, FILE);
    expect(twice.text).to.equal(once);
    expect(twice.changes).to.deep.equal([]);
    const moved = applyMcpServerSettings(once, { command: "obs", args: ["mcp"] }, CWD, FILE);
    expect(moved.changes).to.deep.equal([
      { key: "mcpServers.obs.command", before: LAUNCH.command, after: "obs" },
      { key: "mcpServers.obs.args", before: LAUNCH.args, after: ["mcp"] },
    ]);
  });

  it("keeps keys the user added to the obs entry", () => {
    const own = '{ "mcpServers": { "obs": { "command": "obs", "timeout": 30000, "trust": true } } }';
    const { text, changes } = applyMcpServerSettings(own, { command: "obs", args: ["mcp"] }, CWD, FILE);
    expect(parse(text).mcpServers.obs).to.deep.equal({
      command: "obs",
      timeout: 30000,
      trust: true,
      args: ["mcp"],
      cwd: CWD,
    });
    expect(changes.map((change) => change.key)).to.deep.equal(["mcpServers.obs.args", "mcpServers.obs.cwd"]);
  });

  it("creates the section in an empty file", () => {
    const { text } = applyMcpServerSettings("", LAUNCH, CWD, FILE);
    expect(parse(text)).to.deep.equal({
      mcpServers: { obs: { command: LAUNCH.command, args: LAUNCH.args, cwd: CWD } },
    });
    expect(text.endsWith("}\n")).to.equal(true);
  });

  for (const [label, text, key, type] of [
    ["mcpServers", '{ "mcpServers": ["obs"] }', "mcpServers", "array"],
    ["mcpServers.obs", '{ "mcpServers": { "obs": "obs mcp" } }', "mcpServers.obs", "string"],
  ] as const) {
    it(`reports a ${label} that is not an object and leaves the text as it was`, () => {
      const edit = applyMcpServerSettings(text, LAUNCH, CWD, FILE);
      expect(edit.text).to.equal(text);
      expect(edit.changes).to.deep.equal([]);
      expect(edit.skipped).to.deep.equal([
        {
          key: "mcpServers.obs",
          reason: `"${key}" in settings.json is a ${type}, not an object; obs left it unchanged and did not register its MCP server`,
        },
      ]);
    });
  }

  for (const [label, text] of [
    ["mcpServers", '{\n  "mcpServers": {},\n  "mcpServers": {"tracker": {}}\n}'],
    ["mcpServers.obs", '{"mcpServers": {\n  "obs": {"command": "a"},\n  "obs": {"command": "b"}\n}}'],
  ] as const) {
    it(`reports a ${label} that appears twice (the agent reads the last) and leaves the text as it was`, () => {
      const edit = applyMcpServerSettings(text, LAUNCH, CWD, FILE);
      expect(edit.text).to.equal(text);
      expect(edit.changes).to.deep.equal([]);
      expect(edit.skipped).to.have.length(1);
      expect(edit.skipped[0]?.key).to.equal("mcpServers.obs");
      expect(edit.skipped[0]?.reason).to.match(
        new RegExp(`^"${label.replace(".", "\\.")}" appears twice in settings\\.json \\(lines 2 and 3\\)`),
      );
    });
  }
});

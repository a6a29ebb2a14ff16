import { expect } from "chai";
import { parse } from "jsonc-parser";
import {
  applyTelemetrySettings,
  formattingOf,
  SettingsFileError,
} from "../../../../client/setup/telemetry-settings.js";

const URL = "http://127.0.0.1:27686";
const FILE = "settings.json";

const COMMENTED = `// agentcli user settings
{
    "theme": "dark", // the only readable one
    /* editor block, keep */
    "editor": { "tabSize": 3, "rulers": [80, 100] },
    "telemetry": {
        // off until obs is set up
        "enabled": false,
        "logPrompts": false
    },
    "model": "large",
}
`;

describe("agentcli telemetry settings edit", () => {
  it("sets the three native telemetry keys and nothing else, leaving the protocol to the agent", () => {
    const { text, changes } = applyTelemetrySettings(COMMENTED, URL, FILE);
    expect(parse(text).telemetry).to.deep.equal({
      enabled: true,
      logPrompts: false,
      target: "local",
      otlpEndpoint: URL,
    });
    expect(changes).to.deep.equal([
      { key: "telemetry.enabled", before: false, after: true },
      { key: "telemetry.target", before: null, after: "local" },
      { key: "telemetry.otlpEndpoint", before: null, after: URL },
    ]);
  });

  it("sets the protocol key too when asked, and leaves one the user set when not", () => {
    const pinned = applyTelemetrySettings(COMMENTED, URL, FILE, "grpc");
    expect(parse(pinned.text).telemetry.otlpProtocol).to.equal("grpc");
    expect(pinned.changes.at(-1)).to.deep.equal({ key: "telemetry.otlpProtocol", before: null, after: "grpc" });
    const kept = applyTelemetrySettings(pinned.text, URL, FILE);
    expect(kept.changes).to.deep.equal([]);
    expect(parse(kept.text).telemetry.otlpProtocol).to.equal("grpc");
  });

  it("keeps comments, formatting and other settings byte for byte outside the telemetry object", () => {
    const { text } = applyTelemetrySettings(COMMENTED, URL, FILE);
    const before = COMMENTED.split('    "telemetry"')[0] as string;
    const after = COMMENTED.split('    "model"')[1] as string;
    expect(text.startsWith(before)).to.equal(true);
    expect(text.endsWith(`    "model"${after}`)).to.equal(true);
    expect(text).to.include("// off until obs is set up");
    expect(text).to.include(`        "otlpEndpoint": "${URL}"`);
  });

  it("changes nothing when the file already holds the values", () => {
    const once = applyTelemetrySettings(COMMENTED, URL, FILE).text;
    const twice = applyTelemetrySettings(once, URL, FILE);
    expect(twice.text).to.equal(once);
    expect(twice.changes).to.deep.equal([]);
  });

  it("changes only the endpoint when the collector moved", () => {
    const once = applyTelemetrySettings(COMMENTED, URL, FILE).text;
    const moved = applyTelemetrySettings(once, "http://127.0.0.1:27687", FILE);
    expect(moved.changes).to.deep.equal([
      { key: "telemetry.otlpEndpoint", before: URL, after: "http://127.0.0.1:27687" },
    ]);
  });

  it("creates the document for a new file, ending with a newline", () => {
    const { text, changes } = applyTelemetrySettings("", URL, FILE);
    expect(parse(text)).to.deep.equal({
      telemetry: { enabled: true, target: "local", otlpEndpoint: URL },
    });
    expect(text.endsWith("}\n")).to.equal(true);
    expect(changes).to.have.length(3);
  });

  it("writes with the file's own indentation and line endings", () => {
    expect(formattingOf('{\n\t"a": 1\n}')).to.deep.equal({ insertSpaces: false, tabSize: 1, eol: "\n" });
    expect(formattingOf('{\r\n    "a": 1\r\n}')).to.deep.equal({ insertSpaces: true, tabSize: 4, eol: "\r\n" });
    const { text } = applyTelemetrySettings('{\r\n\t"a": 1\r\n}\r\n', URL, FILE);
    expect(text).to.include('\r\n\t"telemetry": {\r\n\t\t"enabled": true,');
    expect(text.replace(/\r\n/g, "")).not.to.include("\n");
  });

  it("takes the indentation from the first setting, not from a comment above it", () => {
    const headed = '/*\n * agentcli settings\n */\n{\n    "a": 1\n}\n';
    expect(formattingOf(headed)).to.deep.equal({ insertSpaces: true, tabSize: 4, eol: "\n" });
    expect(applyTelemetrySettings(headed, URL, FILE).text).to.include('\n    "telemetry": {\n        "enabled": true,');
  });

  it("refuses a key it would edit that appears twice, since the agent reads the last and obs would edit the first", () => {
    const twice = '{\n  "telemetry": {"enabled": false},\n  "theme": "dark",\n  "telemetry": {"enabled": false}\n}';
    expect(() => applyTelemetrySettings(twice, URL, FILE))
      .to.throw(SettingsFileError)
      .with.property("message")
      .that.matches(/"telemetry" appears twice in settings\.json \(lines 2 and 4\)/);
    const inner = '{"telemetry": {"enabled": false, "enabled": true}}';
    expect(() => applyTelemetrySettings(inner, URL, FILE)).to.throw(
      SettingsFileError,
      /"telemetry\.enabled" appears twice/,
    );
    // A repeated key obs does not edit is the agent's business.
    expect(() => applyTelemetrySettings('{"theme": 1, "theme": 2}', URL, FILE)).not.to.throw();
  });

  it("refuses a file it cannot edit safely, naming the problem and where", () => {
    expect(() => applyTelemetrySettings('{\n  "a": 1,\n  "b" 2\n}', URL, FILE))
      .to.throw(SettingsFileError)
      .with.property("message")
      .that.matches(/settings\.json is not valid JSON with comments \(ColonExpected at line 3, column 7\)/);
    expect(() => applyTelemetrySettings("[1, 2]", URL, FILE)).to.throw(
      SettingsFileError,
      /JSON object at the top level/,
    );
    expect(() => applyTelemetrySettings('{"telemetry": false}', URL, FILE)).to.throw(
      SettingsFileError,
      /"telemetry" in settings\.json is a boolean, not an object/,
    );
  });
});

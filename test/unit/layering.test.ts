import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { PACKAGE_ROOT } from "../../shared/package-root.js";
import { checkLayering, describeViolations, type ImportEdge, importGraph, importsOf } from "../helpers/import-graph.js";
import { ALLOWANCES, LAYERED_FOLDERS, layerRules } from "../helpers/layering-rules.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("layering", () => {
  describe("the sources", () => {
    const edges = importGraph(PACKAGE_ROOT, LAYERED_FOLDERS);

    it("keep their layers", () => {
      const report = checkLayering(edges, layerRules(edges), ALLOWANCES);
      expect(report.violations, `imports that break the layering:\n${describeViolations(report)}`).to.deep.equal([]);
      expect(
        report.unused.map((allowance) => `${allowance.from} -> ${allowance.to}`),
        "allowances no import needs any more: remove them from test/helpers/layering-rules.ts (or update a moved path)",
      ).to.deep.equal([]);
    });

    it("are read whole: static, type-only, dynamic and worker imports", () => {
      const has = (from: string, to: string, kind: ImportEdge["kind"]) =>
        edges.some((edge) => edge.from === from && edge.to === to && edge.kind === kind);
      expect(has("client/cli/monitor-command.ts", "daemon/run-foreground.ts", "dynamic")).to.equal(true);
      expect(has("daemon/http/health-route.ts", "daemon/store/health-reader.ts", "type")).to.equal(true);
      expect(has("daemon/store/connection.ts", "better-sqlite3", "static")).to.equal(true);
      expect(has("daemon/ingest/ingest-pipeline.ts", "daemon/store/writer-worker.ts", "url")).to.equal(true);
      expect(new Set(edges.map((edge) => edge.from.split("/")[0]))).to.deep.equal(new Set(LAYERED_FOLDERS));
    });
  });

  describe("reading imports", () => {
    it("finds every form of import and nothing in comments, strings, templates or regular expressions", () => {
      const source = `
import type Database from "better-sqlite3";
import { a, type B } from './a.js';
import "./side-effect.js";
export { c } from "./c.js";
export type { D } from "./d.js";
// import { no } from "./line-comment.js";
/* import { no } from "./block-comment.js"; */
const text = "import { no } from './string.js'";
const pattern = /from "\\.\\/regex.js"/g;
const ratio = a / 2; const more = "x" / 3;
const template = \`import x from "./template.js" \${await import("./in-template.js")} from "./after.js"\`;
const lazy = await import("./lazy.js");
type Lazy = typeof import("./typed.js");
const worker = new Worker(new URL("./worker.js", import.meta.url));
const legacy = require("./legacy.js");
`;
      expect(importsOf(source).map(({ specifier, kind }) => `${kind} ${specifier}`)).to.deep.equal([
        "type better-sqlite3",
        "static ./a.js",
        "static ./side-effect.js",
        "static ./c.js",
        "type ./d.js",
        "dynamic ./in-template.js",
        "dynamic ./lazy.js",
        "type ./typed.js",
        "url ./worker.js",
        "dynamic ./legacy.js",
      ]);
    });

    it("gives each import its line", () => {
      expect(
        importsOf('\n\nimport { x } from "./x.js";\n/*\n*/\nawait import("./y.js");').map((i) => i.line),
      ).to.deep.equal([3, 6]);
    });
  });

  describe("the checker", () => {
    let dir: ReturnType<typeof tempDir>;
    beforeEach(() => {
      dir = tempDir();
    });
    afterEach(() => dir.cleanup());

    const write = (files: Record<string, string>) => {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir.path, path)), { recursive: true });
        writeFileSync(join(dir.path, path), text);
      }
    };

    it("reports each import that breaks a rule, with the rule and where", () => {
      write({
        "daemon/store/connection.ts": 'import Database from "better-sqlite3";\nexport const open = Database;\n',
        "daemon/store/store-errors.ts": "export class StorageError extends Error {}\n",
        "daemon/query/sqlite-reader.ts": "export class SqliteReader {}\n",
        "daemon/query/telemetry-reader.ts": "export interface TelemetryReader {}\n",
        "daemon/query/query-service.ts": 'import type { TelemetryReader } from "./telemetry-reader.js";\n',
        "daemon/otlp/decode.ts": 'import { open } from "../store/connection.js";\n',
        "daemon/http/ingest.ts":
          'import { StorageError } from "../store/store-errors.js";\nimport "../query/query-service.js";\n',
        "daemon/http/health.ts": 'import type { open } from "../store/connection.js";\n',
        "daemon/http/raw.ts": '\nimport Database from "better-sqlite3";\n',
        "daemon/mcp/tools.ts": 'import { SqliteReader } from "../query/sqlite-reader.js";\n',
        "client/cli/find.ts": 'const { x } = await import("../../daemon/query/telemetry-reader.js");\n',
        "client/cli/monitor-command.ts": 'await import("../../daemon/run-foreground.js");\n',
        "daemon/run-foreground.ts": "export {};\n",
        "client/cli/mcp-command.ts": 'await import("../../daemon/mcp/mcp-server.js");\n',
        "daemon/mcp/mcp-server.ts": "export {};\n",
        "shared/records.ts": 'import type { Row } from "../client/render/table.js";\n',
        "client/render/table.ts": "export type Row = string[];\n",
      });
      const edges = importGraph(dir.path, LAYERED_FOLDERS);
      const report = checkLayering(edges, layerRules(edges), ALLOWANCES);
      expect(
        report.violations.map(({ rule, edge }) => `${edge.from}:${edge.line} -> ${edge.to}: ${rule}`),
      ).to.have.members([
        "daemon/otlp/decode.ts:1 -> daemon/store/connection.ts: otlp does not import the store",
        "daemon/http/health.ts:1 -> daemon/store/connection.ts: transports and front-ends do not touch SQLite",
        "daemon/http/raw.ts:2 -> better-sqlite3: transports and front-ends do not touch SQLite",
        "daemon/mcp/tools.ts:1 -> daemon/query/sqlite-reader.ts: front-ends go through the query service",
        "client/cli/find.ts:1 -> daemon/query/telemetry-reader.ts: the client does not import the daemon",
        "client/cli/find.ts:1 -> daemon/query/telemetry-reader.ts: front-ends go through the query service",
        "shared/records.ts:1 -> client/render/table.ts: shared imports neither daemon nor client",
      ]);
      expect(describeViolations(report)).to.contain(
        "daemon/otlp/decode.ts:1 imports daemon/store/connection.ts (static)",
      );
      // The foreground start and `obs mcp` are let through; the allowances for code absent here are unused.
      expect(report.unused.map((allowance) => allowance.from)).to.not.include("client/cli/monitor-command.ts");
      expect(report.unused.map((allowance) => allowance.from)).to.not.include("client/cli/mcp-command.ts");
      expect(report.unused.map((allowance) => allowance.kind)).to.deep.equal(["until-fixed", "until-fixed"]);
    });

    it("lets an allowed import through only from and to the files it names", () => {
      const edges: ImportEdge[] = [
        { from: "client/cli/monitor-command.ts", to: "daemon/run-foreground.ts", kind: "dynamic", line: 1 },
        { from: "client/cli/other-command.ts", to: "daemon/run-foreground.ts", kind: "dynamic", line: 4 },
        { from: "client/cli/monitor-command.ts", to: "daemon/collector.ts", kind: "static", line: 2 },
      ];
      const report = checkLayering(edges, layerRules(edges), ALLOWANCES);
      expect(report.violations.map(({ edge }) => `${edge.from} -> ${edge.to}`)).to.deep.equal([
        "client/cli/other-command.ts -> daemon/run-foreground.ts",
        "client/cli/monitor-command.ts -> daemon/collector.ts",
      ]);
    });
  });
});

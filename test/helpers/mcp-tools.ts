/**
 * Running MCP tools in unit tests: a QueryApi over a real store (the same route-table parsing
 * and query service obsd's /mcp uses, without the query thread), and a call that holds the
 * tool to its contract: arguments valid against inputSchema, the structured answer valid
 * against outputSchema and within max_bytes.
 */
import { Ajv } from "ajv";
import type Database from "better-sqlite3";
import { expect } from "chai";
import { budgetOf } from "../../daemon/mcp/budget.js";
import { inProcessQueryApi } from "../../daemon/mcp/in-process-api.js";
import type { AnswerTail, McpTool, ToolAnswer } from "../../daemon/mcp/mcp-tool.js";
import type { QueryCaller } from "../../daemon/query/query-client.js";
import { QueryService } from "../../daemon/query/query-service.js";
import { SqliteReader } from "../../daemon/query/sqlite-reader.js";
import { openReadConnection } from "../../daemon/store/connection.js";
import { readCursorKey } from "../../daemon/store/cursor-key.js";
import type { HealthRecord } from "../../shared/api-records.js";
import type { QueryApi } from "../../shared/query-api.js";

export interface StoreApi {
  api: QueryApi;
  /** Sets the clock the query windows end at (default: the real time of each call). */
  setNow(ns: bigint | null): void;
  close(): void;
}

/** A QueryApi over the store file at `path`, answering as obsd's /mcp would. */
export function storeApi(path: string, health: Partial<HealthRecord> = {}): StoreApi {
  const db: Database.Database = openReadConnection(path);
  let fixedNow: bigint | null = null;
  let callNow = 0n;
  const service = new QueryService({ reader: new SqliteReader(db), now: () => callNow, cursorKey: readCursorKey(db) });
  const caller: QueryCaller = {
    call(method, args, now) {
      callNow = fixedNow ?? now;
      try {
        return Promise.resolve(JSON.stringify(service.call(method, args)));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
  return {
    api: inProcessQueryApi(caller, () => ({ status: "ok", service: "obsd", ...health }) as HealthRecord),
    setNow(ns) {
      fixedNow = ns;
    },
    close: () => db.close(),
  };
}

/** The collector address unit tests run tools for: their answers link to its web UI. */
export const TOOL_BASE_URL = "http://127.0.0.1:27686";

const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: false });

/**
 * Calls `tool` as the server would (arguments checked against its inputSchema first), then
 * checks the answer: valid against outputSchema, and its JSON within the call's max_bytes.
 */
export async function callTool<A, R extends AnswerTail>(
  tool: McpTool<A, R>,
  args: A,
  api: QueryApi,
): Promise<ToolAnswer<R>> {
  const validInput = ajv.compile(tool.inputSchema);
  expect(validInput(args), `${tool.name} input: ${ajv.errorsText(validInput.errors)}`).to.equal(true);
  const maxBytes = budgetOf((args as { max_bytes?: number }).max_bytes);
  const answer = await tool.run(args, { api, baseUrl: TOOL_BASE_URL, maxBytes });
  const validOutput = ajv.compile(tool.outputSchema);
  expect(validOutput(answer.structured), `${tool.name} output: ${ajv.errorsText(validOutput.errors)}`).to.equal(true);
  expect(Buffer.byteLength(JSON.stringify(answer.structured)), `${tool.name} answer bytes`).to.be.at.most(maxBytes);
  expect(answer.summary, `${tool.name} summary`).to.be.a("string").and.not.equal("");
  return answer;
}

/**
 * Every MCP tool obs serves, in the order tools/list shows them (roughly the order of an
 * investigation: where, what, then detail). Adding a tool is a file in tools/ and a line here.
 */
import type { AnyMcpTool } from "./mcp-tool.js";
import { getCriticalPath } from "./tools/critical-path.js";
import { listServices } from "./tools/services.js";
import { getSpanDetails } from "./tools/span-details.js";
import { getTraceErrors } from "./tools/trace-errors.js";
import { getTraceOutline } from "./tools/trace-outline.js";
import { searchTraces } from "./tools/traces.js";

export const MCP_TOOLS: readonly AnyMcpTool[] = [
  listServices,
  searchTraces,
  getTraceOutline,
  getSpanDetails,
  getTraceErrors,
  getCriticalPath,
];

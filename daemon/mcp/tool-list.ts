/**
 * Every MCP tool obs serves, in the order tools/list shows them (roughly the order of an
 * investigation: where, what, then detail). Adding a tool is a file in tools/ and a line here.
 */
import type { AnyMcpTool } from "./mcp-tool.js";
import { listServices } from "./tools/services.js";

export const MCP_TOOLS: readonly AnyMcpTool[] = [listServices];

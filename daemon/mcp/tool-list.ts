/**
 * Every MCP tool obs serves, in the order tools/list shows them (roughly the order of an
 * investigation: where, what, then detail). Adding a tool is a file in tools/ and a line here.
 */
import type { AnyMcpTool } from "./mcp-tool.js";
import { runAudit } from "./tools/audit.js";
import { facets } from "./tools/facets.js";
import { searchLogs } from "./tools/logs.js";
import { describeMetric, listMetrics, queryMetric } from "./tools/metrics.js";
import { listServices } from "./tools/services.js";
import { searchSpans } from "./tools/spans.js";
import { logStats, traceStats } from "./tools/stats.js";

export const MCP_TOOLS: readonly AnyMcpTool[] = [
  listServices,
  searchSpans,
  searchLogs,
  traceStats,
  logStats,
  facets,
  runAudit,
  listMetrics,
  queryMetric,
  describeMetric,
];

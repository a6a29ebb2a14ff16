/**
 * The audit's follow-ups are `obs` commands (daemon/audit/follow-up.ts writes them, quoted for a
 * shell). An agent on MCP calls tools instead: each command is read back into its words and
 * translated to the tool call that asks the same question, when one exists. A command with a
 * flag no tool argument carries is not translated (null), rather than translated loosely. Pure.
 */
import type { NextCall } from "../mcp-tool.js";
import { traceOutlineCall } from "./next-calls.js";

/** The words of a command as a POSIX shell splits them: plain words and '...' quoted parts. */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const char = command.charAt(i);
    if (char === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${command}`);
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else if (char === "\\" && i + 1 < command.length) {
      word = (word ?? "") + command.charAt(++i);
    } else if (char === " ") {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? "") + char;
  }
  if (word !== null) words.push(word);
  return words;
}

/** Command flags and the tool argument each becomes. */
const FLAG_ARGUMENTS: Record<string, { name: string; number?: boolean }> = {
  "--service": { name: "service" },
  "--operation": { name: "operation" },
  "--status": { name: "status" },
  "--severity": { name: "severity" },
  "--since": { name: "lookback" },
  "--duration-min": { name: "min_duration_ms", number: true },
};

/** Each list command: the tool it becomes, and the positional argument's name if it takes one. */
const LIST_COMMANDS: Record<string, { tool: string; positional?: string }> = {
  traces: { tool: "search_traces" },
  spans: { tool: "search_spans" },
  logs: { tool: "search_logs" },
  metrics: { tool: "list_metrics" },
  "log-stats": { tool: "log_stats", positional: "group_by" },
};

function flagArguments(words: readonly string[]): Record<string, unknown> | null {
  const args: Record<string, unknown> = {};
  for (let i = 0; i < words.length; i += 2) {
    const flag = FLAG_ARGUMENTS[words[i] ?? ""];
    const value = words[i + 1];
    if (!flag || value === undefined) return null;
    args[flag.name] = flag.number ? Number(value) : value;
  }
  return args;
}

/** The tool call a follow-up command corresponds to, or null when no tool asks the same. */
export function followUpCall(command: string, why: string): NextCall | null {
  let words: string[];
  try {
    words = shellWords(command);
  } catch {
    return null;
  }
  const [obs, verb, ...rest] = words;
  if (obs !== "obs" || verb === undefined) return null;
  const id = rest[0];
  if (verb === "trace" && rest.length === 1 && id) {
    return traceOutlineCall(id, why);
  }
  // The correlated-logs route looks back 24h; search_logs by trace id does the same with lookback 24h.
  if (verb === "trace-logs" && rest.length === 1 && id) {
    return { tool: "search_logs", arguments: { trace_id: id, lookback: "24h" }, why };
  }
  const list = LIST_COMMANDS[verb];
  if (!list) return null;
  const positional = list.positional ? rest[0] : undefined;
  if (list.positional && (positional === undefined || positional.startsWith("--"))) return null;
  const flags = flagArguments(list.positional ? rest.slice(1) : rest);
  if (!flags) return null;
  return {
    tool: list.tool,
    arguments: list.positional ? { [list.positional]: positional, ...flags } : flags,
    why,
  };
}

/**
 * An audit report's findings arranged for reading: grouped by severity in the report's own
 * order (error, warning, info), and each finding's current and baseline figures side by side.
 * Pure.
 */
import type { AuditReportRecord } from "../../../../shared/query-types.js";

export type Finding = AuditReportRecord["findings"][number];

export const SEVERITY_ORDER = ["error", "warning", "info"] as const;

export interface FindingGroup {
  severity: string;
  findings: Finding[];
}

/** Non-empty groups, error then warning then info, then any severity the report adds later; findings keep their order. */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups = new Map<string, Finding[]>(SEVERITY_ORDER.map((severity) => [severity, []]));
  for (const finding of findings) {
    const list = groups.get(finding.severity);
    if (list) list.push(finding);
    else groups.set(finding.severity, [finding]);
  }
  return [...groups].filter(([, list]) => list.length > 0).map(([severity, list]) => ({ severity, findings: list }));
}

export interface FigureRow {
  name: string;
  label: string;
  current: number | null;
  baseline: number | null;
}

/** `p95Ms` → "p95 (ms)", `errorTraces` → "error traces", `rate_per_min` → "rate per min". */
export function figureLabel(name: string): string {
  const ms = /^(.*?)_?Ms$/.exec(name);
  const base = ms?.[1] ?? name;
  const words = base
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .trim();
  return ms ? `${words} (ms)` : words;
}

/** One row per figure named in either window, the current window's names first. */
export function figureRows(
  current: Record<string, number> | null,
  baseline: Record<string, number> | null,
): FigureRow[] {
  const names = [...new Set([...Object.keys(current ?? {}), ...Object.keys(baseline ?? {})])];
  return names.map((name) => ({
    name,
    label: figureLabel(name),
    current: current?.[name] ?? null,
    baseline: baseline?.[name] ?? null,
  }));
}

/** A figure as shown: whole numbers as they are, fractions to 3 significant digits, absent as "–". */
export function formatFigure(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return "–";
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
}

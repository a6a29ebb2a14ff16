/**
 * A log's severity level, from its OTLP severity number by the specification's ranges (1-4
 * trace, 5-8 debug, 9-12 info, 13-16 warn, 17-20 error, 21-24 fatal), so a record whose text
 * says "E" or nothing is still coloured by what it is. The text decides only when the number
 * is unspecified (0). Pure.
 */

/** The levels, lowest first: also the values the log search's `severity` filter matches by name. */
export const SEVERITY_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type SeverityLevel = (typeof SEVERITY_LEVELS)[number];

const TEXT_LEVELS: [RegExp, SeverityLevel][] = [
  [/^(fatal|crit|critical|emerg|emergency|alert|panic)/i, "fatal"],
  [/^(err|error|severe)/i, "error"],
  [/^(warn|warning)/i, "warn"],
  [/^(info|information|notice)/i, "info"],
  [/^(debug|dbg|fine)/i, "debug"],
  [/^(trace|finest|finer)/i, "trace"],
];

/** The level of a severity number and text; undefined when neither names one. */
export function severityLevel(severityNumber: number, severityText: string | null): SeverityLevel | undefined {
  if (severityNumber >= 1 && severityNumber <= 24) return SEVERITY_LEVELS[Math.floor((severityNumber - 1) / 4)];
  const text = severityText?.trim() ?? "";
  for (const [pattern, level] of TEXT_LEVELS) if (pattern.test(text)) return level;
  return undefined;
}

/** What a row shows: the record's own text, else its level's name, else the number. */
export function severityLabel(severityNumber: number, severityText: string | null): string {
  if (severityText?.trim()) return severityText.trim();
  const level = severityLevel(severityNumber, severityText);
  if (level) return level.toUpperCase();
  return severityNumber > 0 ? String(severityNumber) : "–";
}

/** The CSS class that colours a severity: trace and debug muted, info plain, warn amber, error and fatal red. */
export function severityClass(severityNumber: number, severityText: string | null): string {
  const level = severityLevel(severityNumber, severityText);
  return level ? `sev sev-${level}` : "sev sev-unset";
}

/**
 * The port of a collector to reach, as typed: the fast path (fast-path.ts) and the full parser
 * (query-support.ts) read it with this one function, so `obs monitor status --port N` means the
 * same whichever of them runs. Port 0 names no collector: it only asks for a free port when
 * one is bound (`obs monitor start --port 0`, which reads its own flags).
 */
export function collectorPort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : null;
}

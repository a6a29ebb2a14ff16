/** Small measurement helpers shared by the benchmarks. */
import { readdirSync, readFileSync } from "node:fs";

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] as number;
}

/** Peak resident set size of a process (VmHWM), in bytes. */
export function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Current resident set size of a process (VmRSS), in MiB. */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return round(Number(match?.[1] ?? 0) / 1024);
}

/** Least-squares slope of `ys` over `xs`. */
export function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    den += ((xs[i] as number) - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * CPU seconds (user + system) of each thread of a process, by thread id, from
 * /proc/PID/task/TID/stat (Linux; empty elsewhere). A thread that ended is missing.
 */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  const ticks = 100; // USER_HZ, 100 on every Linux this runs on
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      // Fields after the parenthesized name: state is the first, utime the 12th, stime the 13th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      threads.set(tid, (Number(fields[11]) + Number(fields[12])) / ticks);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

/** Each thread's CPU microseconds per unit of work between two `threadCpuSeconds` readings, busiest first. */
export function threadCpuPerUnit(before: Map<string, number>, after: Map<string, number>, units: number): number[] {
  return [...after]
    .map(([tid, seconds]) => ((seconds - (before.get(tid) ?? 0)) * 1e6) / units)
    .sort((a, b) => b - a)
    .map((us) => round(us, 1));
}

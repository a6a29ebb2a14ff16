import { readFileSync } from "node:fs";

/** What `/proc/PID/stat` says of a process (Linux): the fields after its command name that obs reads. */
export interface ProcStat {
  /** R, S, D, Z (exited, not yet reaped), X (dead), ... */
  state: string;
  /** Its process group. */
  group: number;
  /** When it started, in clock ticks after the machine booted (USER_HZ, 100 a second on Linux). */
  startTicks: number;
}

/** The clock ticks /proc counts in: USER_HZ, which Linux fixes at 100 for user space. */
const TICKS_PER_SECOND = 100;

/** A process's `/proc/PID/stat`, or null where there is none to read (no such process, no /proc). */
export function procStat(pid: number | string): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name is in parentheses and may hold any character, these too: the fields
  // start after the last one.
  // State, parent, process group, ...; the start time is the 22nd field of the line.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [state, , group] = fields;
  return { state: state ?? "", group: Number(group), startTicks: Number(fields[19]) };
}

/** When the machine booted, in ms since the epoch (`btime` in /proc/stat), or null where unknown. */
function bootTimeMs(): number | null {
  try {
    const match = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    return match ? Number(match[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/**
 * When a process started, in ms since the epoch, to within a second (the boot time /proc gives
 * is in whole seconds), or null where that cannot be read.
 */
export function processStartMs(pid: number): number | null {
  const ticks = procStat(pid)?.startTicks;
  const boot = bootTimeMs();
  if (ticks === undefined || !Number.isFinite(ticks) || boot === null) return null;
  return boot + (ticks / TICKS_PER_SECOND) * 1000;
}

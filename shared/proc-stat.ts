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

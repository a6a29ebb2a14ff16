import { readFileSync } from "node:fs";

/** What `/proc/PID/stat` says of a process (Linux): the fields after its command name that obs reads. */
export interface ProcStat {
  /** R, S, D, Z (exited, not yet reaped), X (dead), ... */
  state: string;
  /** Its process group. */
  group: number;
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
  // State, parent, process group.
  const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: state ?? "", group: Number(group) };
}

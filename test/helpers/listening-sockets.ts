/** What a process is started with and where it listens, read from /proc (Linux). */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import psList from "ps-list";

/** The processes named `name` that this test process started, directly or through others (xvfb-run). */
export async function descendantsNamed(name: string): Promise<number[]> {
  const processes = await psList();
  const parent = new Map(processes.map((candidate) => [candidate.pid, candidate.ppid]));
  const descends = (pid: number): boolean => {
    for (let up = parent.get(pid); up !== undefined && up > 1; up = parent.get(up)) if (up === process.pid) return true;
    return false;
  };
  return processes.filter((candidate) => candidate.name === name && descends(candidate.pid)).map((found) => found.pid);
}

/** A process's arguments exactly as it received them (argv[0] first). */
export function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // The descriptor closed while we looked.
    }
  }
  return inodes;
}

/** /proc/net/tcp6 writes an address as four little-endian 32-bit words. */
function ipv6(hex: string): string {
  const bytes: string[] = [];
  for (let word = 0; word < 4; word++) {
    const chunk = hex.slice(word * 8, word * 8 + 8);
    for (let byte = 3; byte >= 0; byte--) bytes.push(chunk.slice(byte * 2, byte * 2 + 2));
  }
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(String(Number.parseInt(`${bytes[i]}${bytes[i + 1]}`, 16).toString(16)));
  return groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

function ipv4(hex: string): string {
  return [3, 2, 1, 0].map((byte) => Number.parseInt(hex.slice(byte * 2, byte * 2 + 2), 16)).join(".");
}

/** The addresses (`127.0.0.1:9515`, `[::1]:9515`, `0.0.0.0:9515`, `[::]:9515`) process `pid` listens on over TCP. */
export function listeningAddresses(pid: number): string[] {
  const inodes = socketInodes(pid);
  const found: string[] = [];
  for (const [file, format] of [
    ["/proc/net/tcp", ipv4],
    ["/proc/net/tcp6", (hex: string) => `[${ipv6(hex)}]`],
  ] as const) {
    let table: string;
    try {
      table = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of table.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is field 1, st is field 3 (0A = LISTEN), inode is field 9.
      if (fields.length < 10 || fields[3] !== "0A" || !inodes.has(fields[9] as string)) continue;
      const [address, port] = (fields[1] as string).split(":") as [string, string];
      found.push(`${format(address)}:${Number.parseInt(port, 16)}`);
    }
  }
  return found.sort();
}

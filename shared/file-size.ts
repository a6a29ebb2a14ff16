import { statSync } from "node:fs";

/** A file's size in bytes; 0 when it does not exist (a WAL file before the first write, say). */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A real, small filesystem (tmpfs) for full-disk tests. Mounting needs root (CAP_SYS_ADMIN). */
export interface SmallDisk {
  path: string;
  /** Grows or shrinks the filesystem in place: files on it stay. */
  resize(mebibytes: number): void;
  unmount(): void;
}

export class CannotMountError extends Error {
  override name = "CannotMountError";
}

export function mountSmallDisk(mebibytes: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), "obs-small-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${mebibytes}m,mode=0700`, "tmpfs", path], { stdio: "pipe" });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    const stderr = String((error as { stderr?: Buffer }).stderr ?? "").trim();
    throw new CannotMountError(`cannot mount a ${mebibytes} MiB tmpfs: ${stderr || (error as Error).message}`);
  }
  return {
    path,
    resize(size: number) {
      execFileSync("mount", ["-o", `remount,size=${size}m`, path], { stdio: "pipe" });
    },
    unmount() {
      try {
        execFileSync("umount", [path], { stdio: "pipe" });
      } catch {
        execFileSync("umount", ["-l", path], { stdio: "pipe" });
      }
      rmSync(path, { recursive: true, force: true });
    },
  };
}

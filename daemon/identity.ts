import { randomBytes } from "node:crypto";
import { OBS_VERSION } from "../shared/package-root.js";

/** Who this collector is: lets clients tell it apart from any other process on the port. */
export interface CollectorIdentity {
  instanceId: string;
  pid: number;
  cwd: string;
  startedAt: string;
  version: string;
}

export function newIdentity(): CollectorIdentity {
  return {
    instanceId: randomBytes(16).toString("hex"),
    pid: process.pid,
    cwd: process.cwd(),
    startedAt: new Date().toISOString(),
    version: OBS_VERSION,
  };
}

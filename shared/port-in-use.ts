/**
 * What obsd says when its port is held by another process. It exits 2 then, as for any setting
 * it cannot use; `obs monitor start --detach` finds these words in the log of a collector it
 * spawned that exited so (another start, from another state folder, took the port first), and
 * reports the port as held (exit 3), as when it finds it held before spawning.
 */
export const PORT_IN_USE = "is already in use by another process";

export function portInUseMessage(host: string, port: number): string {
  return `port ${port} on ${host} ${PORT_IN_USE}; choose another with --port`;
}

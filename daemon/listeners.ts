/**
 * The ports a collector opens: its own (the query API and every OTLP transport), and on request
 * the OTLP standard ports. Each port is a node:http server of its own sharing the one express
 * app and the one gRPC server (one-port.ts), so each serves the same transports. The main port
 * must open; a standard port that cannot is reported and skipped.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type CollectorEndpoint, OTLP_PROTOCOLS, STANDARD_PORTS } from "../shared/endpoints.js";
import { portInUseMessage } from "../shared/port-in-use.js";

/** Thrown when the port cannot be bound; the message says which and why, `code` the listen's error. */
export class ListenError extends Error {
  override name = "ListenError";
  constructor(
    message: string,
    readonly host: string,
    readonly port: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

export function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === "EADDRINUSE"
          ? portInUseMessage(host, port)
          : error.code === "EACCES"
            ? `no permission to listen on ${host}:${port}`
            : `cannot listen on ${host}:${port}: ${error.message}`;
      reject(new ListenError(reason, host, port, error.code));
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

export interface StandardListeners {
  /** The servers that did open. */
  servers: Server[];
  endpoints: CollectorEndpoint[];
}

/** Why a standard port could not be opened, without the main port's --port advice. */
function standardPortProblem(error: unknown, port: number): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "EADDRINUSE") return `port ${port} is in use by another process`;
  if (code === "EACCES") return `no permission to listen on port ${port}`;
  return (error as Error)?.message ?? String(error);
}

function listenStandard(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export function mainEndpoint(host: string, port: number): CollectorEndpoint {
  const url = `http://${urlHost(host)}:${port}`;
  return { role: "main", url, port, protocols: [...OTLP_PROTOCOLS], listening: true, problem: null };
}

/** Opens 4317 and 4318 on `host`, each with a server from `createServer`; never throws. */
export async function openStandardPorts(host: string, createServer: () => Server): Promise<StandardListeners> {
  const wanted = [
    { role: "otlp-grpc", port: STANDARD_PORTS.grpc },
    { role: "otlp-http", port: STANDARD_PORTS.http },
  ] as const;
  const opened = await Promise.all(
    wanted.map(async ({ role, port }) => {
      const server = createServer();
      const url = `http://${urlHost(host)}:${port}`;
      try {
        await listenStandard(server, host, port);
        const endpoint: CollectorEndpoint = {
          role,
          url,
          port,
          protocols: [...OTLP_PROTOCOLS],
          listening: true,
          problem: null,
        };
        return { server, endpoint };
      } catch (error) {
        const problem = standardPortProblem(error, port);
        return {
          server: null,
          endpoint: { role, url, port, protocols: [...OTLP_PROTOCOLS], listening: false, problem },
        };
      }
    }),
  );
  return {
    servers: opened.flatMap(({ server }) => (server ? [server] : [])),
    endpoints: opened.map(({ endpoint }) => endpoint),
  };
}

/**
 * Closes every server: requests in flight finish (their writes commit) and their connections
 * close as they go idle; anything still open after `graceMs` is cut.
 */
export async function closeServers(servers: readonly Server[], graceMs: number): Promise<void> {
  const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
  const sweep = setInterval(() => {
    for (const server of servers) server.closeIdleConnections();
  }, 25);
  for (const server of servers) server.closeIdleConnections();
  const grace = setTimeout(() => {
    for (const server of servers) server.closeAllConnections();
  }, graceMs);
  await Promise.all(closed);
  clearInterval(sweep);
  clearTimeout(grace);
}

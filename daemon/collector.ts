import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ForwardingStatusRecord } from "../shared/api-records.js";
import type { ResolvedSettings } from "../shared/collector-settings.js";
import type { CollectorEndpoint } from "../shared/endpoints.js";
import { destinationKey } from "../shared/forward-settings.js";
import { lockStore, type StoreLock } from "./control/store-lock.js";
import { Forwarding } from "./forward/forwarding.js";
import { createGrpcServer } from "./grpc/grpc-server.js";
import { shareListener } from "./grpc/one-port.js";
import { createRequestListener } from "./http/app.js";
import { type HealthOptions, healthDocument } from "./http/health-route.js";
import { isAllowedHost, localNames } from "./http/host-guard.js";
import { type CollectorIdentity, newIdentity } from "./identity.js";
import { IngestPipeline } from "./ingest/ingest-pipeline.js";
import type { WriteStatusChange } from "./ingest/write-status.js";
import { closeServers, ListenError, listen, mainEndpoint, openStandardPorts, urlHost } from "./listeners.js";
import { inProcessQueryApi } from "./mcp/in-process-api.js";
import { HeldWritesFirst } from "./query/held-writes-first.js";
import { QueryClient } from "./query/query-client.js";
import { openReadConnection } from "./store/connection.js";
import { FootprintMonitor } from "./store/footprint-monitor.js";
import { HealthReader } from "./store/health-reader.js";

export { ListenError };

export interface RunningCollector {
  identity: CollectorIdentity;
  baseUrl: string;
  host: string;
  port: number;
  /** The store file's real path (symlinks resolved): what the registry records and clients compare. */
  storePath: string;
  schemaVersion: number;
  migrated: number[];
  /** Every port it listens on (or was asked to and could not), with the protocols served. */
  endpoints: CollectorEndpoint[];
  /** Each forwarding destination's state, lag and counters (none without --forward). */
  forwarding(): ForwardingStatusRecord[];
  /** Stops accepting requests, lets in-flight writes commit, closes the database. */
  close(): Promise<void>;
}

export interface CollectorOptions {
  /** How often age-based retention runs. */
  retentionIntervalMs?: number;
  /** Rows deleted per retention transaction. */
  retentionBatchRows?: number;
  /** Told when writes start failing (e.g. a full disk) and when they succeed again. */
  onWriteStatusChange?: (change: WriteStatusChange) => void;
  /**
   * Told if the store lock is lost while running (its heartbeat could not be kept, or its
   * folder went): writes are refused from then on, and the caller must stop the collector.
   */
  onStoreLockLost?: (error: Error) => void;
  /** Told other things worth a line in the collector's log (records rejected as too old). */
  onNotice?: (line: string) => void;
  /** Told if the writer thread dies while running: nothing restarts it, so the caller must stop. */
  onWriterLost?: (error: Error) => void;
}

/**
 * Takes the store (one collector per store file, for its whole life: StoreInUseError when
 * another holds it), opens it, starts the writer and the HTTP server.
 */
export async function startCollector(
  resolved: ResolvedSettings,
  options: CollectorOptions = {},
): Promise<RunningCollector> {
  const { settings } = resolved;
  const identity = newIdentity();
  // Another collector may take a lost lock and write the store too: from then on this one
  // refuses writes (those in flight are stored) and its caller stops it.
  let refuseWrites: (reason: string) => void = () => {};
  const storeLock = await lockStore(settings.dbPath, identity.cwd, (error) => {
    options.onStoreLockLost?.(error);
    refuseWrites("the collector lost the lock on its store and is stopping");
  });
  try {
    return await startOnLockedStore(resolved, options, identity, storeLock, (pipeline) => {
      refuseWrites = (reason) => pipeline.refuseWrites(reason);
    });
  } catch (error) {
    await storeLock.release();
    throw error;
  }
}

async function startOnLockedStore(
  resolved: ResolvedSettings,
  options: CollectorOptions,
  identity: CollectorIdentity,
  storeLock: StoreLock,
  onPipeline: (pipeline: IngestPipeline) => void,
): Promise<RunningCollector> {
  const { settings } = resolved;
  // Opened by its real path, the one the lock holds: the -wal and -shm files sit beside it.
  const dbPath = storeLock.path;
  const pipeline = new IngestPipeline(
    {
      dbPath,
      retention: {
        maxAgeMs: settings.retentionMs,
        maxBytes: settings.maxDbBytes,
        batchRows: options.retentionBatchRows ?? 2000,
      },
      retentionIntervalMs: options.retentionIntervalMs ?? 10_000,
      forwardDestinations: settings.forward.map(destinationKey),
    },
    settings.maxBodyBytes,
  );
  if (options.onWriteStatusChange) pipeline.onWriteStatusChange = options.onWriteStatusChange;
  if (options.onNotice) pipeline.onNotice = options.onNotice;
  if (options.onWriterLost) pipeline.onWriterLost = options.onWriterLost;
  onPipeline(pipeline);
  const ready = await pipeline.ready;
  const forwarding =
    settings.forward.length > 0
      ? new Forwarding({
          dbPath,
          destinations: settings.forward,
          onProgress: (progress) => pipeline.forwarded(progress),
          onNotice: options.onNotice ?? ((line) => console.error(line)),
        })
      : null;
  const readDb = openReadConnection(dbPath);
  const queryClient = new QueryClient(dbPath);
  // Metric answers include what the writer holds unwritten (the open minute of each series).
  const queries = new HeldWritesFirst(queryClient, () => pipeline.writeHeld());
  const footprint = new FootprintMonitor(dbPath, options.onNotice ?? ((line) => console.error(line)));
  let baseUrl = "";
  let endpoints: CollectorEndpoint[] = [];
  const healthOptions: HealthOptions = {
    identity,
    settings,
    sources: resolved.sources,
    baseUrl: () => baseUrl,
    boundPort: () => address.port,
    endpoints: () => endpoints,
    reader: new HealthReader(readDb),
    footprint,
    writes: () => pipeline.writes.snapshot(),
    forwarding: () => forwarding?.status() ?? [],
    versions: { sqlite: ready.sqliteVersion, schema: ready.schemaVersion },
  };
  const listener = createRequestListener({
    boundHost: settings.host,
    ingest: { pipeline, maxBodyBytes: settings.maxBodyBytes },
    health: healthOptions,
    queries,
    queryApi: inProcessQueryApi(queries, () => healthDocument(healthOptions)),
  });
  const names = localNames();
  const grpc = createGrpcServer({
    pipeline,
    maxBodyBytes: settings.maxBodyBytes,
    authorityAllowed: (authority) => isAllowedHost(authority, settings.host, names),
  });
  // Each port is an HTTP/1.1 server that hands HTTP/2 prior-knowledge connections (OTLP/gRPC)
  // to the one gRPC server.
  const dropUndecided: (() => void)[] = [];
  const serveBoth = (): Server => {
    const server = createServer(listener);
    // Slow or stalled clients must not hold connections open forever.
    server.requestTimeout = 30_000;
    server.headersTimeout = 10_000;
    server.keepAliveTimeout = 5_000;
    dropUndecided.push(shareListener(server, grpc.server));
    return server;
  };
  const server = serveBoth();
  let address: AddressInfo;
  try {
    address = await listen(server, settings.host, settings.port);
  } catch (error) {
    readDb.close();
    await forwarding?.stop();
    await footprint.close();
    await queryClient.close();
    await pipeline.close();
    throw error;
  }
  baseUrl = `http://${urlHost(settings.host)}:${address.port}`;
  const standard = settings.otlpStandardPorts
    ? await openStandardPorts(settings.host, serveBoth)
    : { servers: [], endpoints: [] };
  const servers = [server, ...standard.servers];
  endpoints = [mainEndpoint(settings.host, address.port), ...standard.endpoints];
  storeLock.describe({ pid: identity.pid, cwd: identity.cwd, port: address.port, baseUrl });

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      const closed = Promise.all([closeServers(servers, 5_000), grpc.close(5_000)]);
      for (const drop of dropUndecided) drop();
      await closed;
      // Before the writer closes: a round reported now is still stored; one cut short is sent again next time.
      await forwarding?.stop();
      // Not awaited before the writer: a page walk under way ends only when its SQLite call returns.
      const footprintClosed = footprint.close();
      await queryClient.close();
      try {
        await pipeline.close();
      } finally {
        readDb.close();
        await footprintClosed;
        await storeLock.release();
      }
    })();
    return closing;
  };

  return {
    identity,
    baseUrl,
    host: settings.host,
    port: address.port,
    storePath: dbPath,
    schemaVersion: ready.schemaVersion,
    migrated: ready.migrated,
    endpoints,
    forwarding: () => forwarding?.status() ?? [],
    close,
  };
}

import type { Router } from "express";
import express from "express";
import type { HealthRecord, SignalHistoryRecord, StoreHistoryRecord } from "../../shared/api-records.js";
import { formatByteSize } from "../../shared/byte-size.js";
import type { CollectorSettings, ResolvedSettings } from "../../shared/collector-settings.js";
import { formatDuration } from "../../shared/duration.js";
import type { CollectorEndpoint } from "../../shared/endpoints.js";
import { fileSize } from "../../shared/file-size.js";
import { forwardSummary } from "../../shared/forward-settings.js";
import { nowNs, nsToIso } from "../../shared/time.js";
import type { DestinationStatus } from "../forward/forwarding.js";
import type { CollectorIdentity } from "../identity.js";
import type { WriteStatusSnapshot } from "../ingest/write-status.js";
import type { HealthReader, StoreCounts } from "../store/health-reader.js";
import { HttpError } from "./http-error.js";

type HistorySignal = keyof Omit<StoreHistoryRecord, "measuredAt">;

/**
 * The store's bytes per signal as last measured, never waiting for a measurement
 * (daemon/store/footprint-monitor.ts); `records` are the counts now, to judge whether to
 * measure again.
 */
export interface FootprintSource {
  latest(records: Record<HistorySignal, number>): {
    bytes: Record<HistorySignal, number>;
    records: Record<HistorySignal, number>;
    atMs: number;
  } | null;
}

export interface HealthOptions {
  identity: CollectorIdentity;
  settings: CollectorSettings;
  /** Where each setting came from: command-line flag, environment or built-in default. */
  sources: ResolvedSettings["sources"];
  baseUrl: () => string;
  /** The port actually bound (differs from the setting when that is 0). */
  boundPort: () => number;
  /** Every port the collector listens on (or was asked to and could not), with its protocols. */
  endpoints: () => CollectorEndpoint[];
  reader: HealthReader;
  /** The store's bytes per signal, measured off this thread. */
  footprint: FootprintSource;
  /** Whether writes currently succeed (a full disk shows here). */
  writes: () => WriteStatusSnapshot;
  /** Each forwarding destination's state, lag and counters (none without --forward). */
  forwarding: () => DestinationStatus[];
  versions: { sqlite: string; schema: number };
}

/**
 * The effective settings, each with where it came from. The one secret, the forwarding
 * headers' values, is masked: only the header names are shown.
 */
function configurationOf(options: HealthOptions): HealthRecord["configuration"] {
  const { settings, sources } = options;
  return {
    monitorHost: { value: settings.host, source: sources.host },
    monitorPort: { value: options.boundPort(), source: sources.port },
    db: { value: settings.dbPath, source: sources.dbPath },
    retention: { value: formatDuration(settings.retentionMs), source: sources.retentionMs },
    maxDbSize: { value: formatByteSize(settings.maxDbBytes), source: sources.maxDbBytes },
    maxBodySize: { value: formatByteSize(settings.maxBodyBytes), source: sources.maxBodyBytes },
    otlpStandardPorts: { value: settings.otlpStandardPorts, source: sources.otlpStandardPorts },
    ...(settings.forward.length === 0
      ? {}
      : (() => {
          const summary = forwardSummary(settings.forward);
          return {
            forward: { value: summary.urls, source: sources.forward },
            forwardProtocol: { value: summary.protocol, source: sources.forwardProtocol },
            forwardHeaders: { value: summary.headers, source: sources.forwardHeaders },
          };
        })()),
  };
}

/** Each signal's reach back from `now` and its bytes per record as last measured. */
function historyOf(options: HealthOptions, counts: StoreCounts, now: bigint): StoreHistoryRecord {
  const oldest = options.reader.oldest();
  const measured = options.footprint.latest({ spans: counts.spans, logs: counts.logs, points: counts.points });
  const signal = (name: HistorySignal): SignalHistoryRecord => {
    const ns = oldest[name];
    const records = measured?.records[name] ?? 0;
    return {
      oldest: ns === null ? null : nsToIso(ns),
      reachSeconds: ns === null ? null : ns >= now ? 0 : Number((now - ns) / 1_000_000_000n),
      bytesPerRecord: measured === null || records === 0 ? null : Math.round(measured.bytes[name] / records),
    };
  };
  return {
    spans: signal("spans"),
    logs: signal("logs"),
    points: signal("points"),
    measuredAt: measured === null ? null : new Date(measured.atMs).toISOString(),
  };
}

/** The window of the services count: the default lookback of /api/services. */
const SERVICES_LOOKBACK_MS = 15 * 60_000;

/**
 * The body of `GET /api/health`. Cheap: counters and one stat call, no table scans; the
 * services count reads the rollups of the last 15 minutes and the raw rows of its two
 * partial minutes; the oldest times are the first entries of time indexes; the bytes per
 * record are the footprint thread's last measurement.
 */
export function healthDocument(options: HealthOptions): HealthRecord {
  const { identity, settings } = options;
  const counts = options.reader.counts();
  const now = nowNs();
  return {
    status: "ok",
    service: "obsd",
    instanceId: identity.instanceId,
    pid: identity.pid,
    cwd: identity.cwd,
    startedAt: identity.startedAt,
    uptimeSeconds: Math.round(process.uptime()),
    baseUrl: options.baseUrl(),
    endpoints: options.endpoints(),
    database: {
      path: settings.dbPath,
      sizeBytes: fileSize(settings.dbPath) + fileSize(`${settings.dbPath}-wal`),
      writes: options.writes(),
      history: historyOf(options, counts, now),
    },
    retention: {
      maxAge: formatDuration(settings.retentionMs),
      maxAgeMs: settings.retentionMs,
      maxBytes: settings.maxDbBytes,
    },
    // Services as /api/services counts them under its default window (not every name stored).
    counts: {
      services: options.reader.servicesSeen(now, SERVICES_LOOKBACK_MS),
      servicesLookback: formatDuration(SERVICES_LOOKBACK_MS),
      traces: counts.traces,
      spans: counts.spans,
      logs: counts.logs,
      series: counts.series,
      points: counts.points,
    },
    latestTelemetryAt: counts.latestNs === null ? null : nsToIso(counts.latestNs),
    forwarding: options.forwarding(),
    configuration: configurationOf(options),
    versions: {
      obs: identity.version,
      node: process.version,
      sqlite: options.versions.sqlite,
      schema: options.versions.schema,
    },
  };
}

export function healthRoutes(options: HealthOptions): Router {
  const router = express.Router();
  router.get("/api/health", (_req, res) => {
    res.json(healthDocument(options));
  });
  router.all("/api/health", (_req, _res, next) =>
    next(new HttpError(405, "use GET for /api/health", { Allow: "GET, HEAD" })),
  );
  return router;
}

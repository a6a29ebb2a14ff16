/**
 * The resources obs serves: `obs://collector`, the collector an agent is talking to (identity,
 * version, counts, endpoints), from the QueryApi's health document. Fields are picked one by
 * one, so whatever the health document gains later is not published here unseen.
 */
import type { HealthRecord } from "../../shared/api-records.js";
import { uiUrl } from "../../shared/ui-links.js";

export const COLLECTOR_RESOURCE = {
  uri: "obs://collector",
  name: "collector",
  title: "obs collector",
  description:
    "The obs collector behind these tools: its identity, version, address, web UI and endpoints, database size, retention, and counts of services, traces, spans, logs and metric points.",
  mimeType: "application/json",
} as const;

/**
 * The `obs://collector` document: what an agent needs to know the collector and its data, and
 * the web UI to point a person at, on the collector at `baseUrl` (the address the tools use).
 */
export function collectorDocument(health: HealthRecord, baseUrl: string): Record<string, unknown> {
  return {
    service: health.service,
    instanceId: health.instanceId,
    version: health.versions?.obs,
    pid: health.pid,
    cwd: health.cwd,
    startedAt: health.startedAt,
    uptimeSeconds: health.uptimeSeconds,
    baseUrl: health.baseUrl,
    ui: uiUrl(baseUrl),
    endpoints: health.endpoints,
    database: { path: health.database?.path, sizeBytes: health.database?.sizeBytes },
    retention: health.retention,
    counts: health.counts,
    latestTelemetryAt: health.latestTelemetryAt,
  };
}

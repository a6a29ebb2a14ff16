import type { HealthRecord } from "../../shared/api-records.js";
import { formatByteSize } from "../../shared/byte-size.js";
import type { CollectorSettings, ResolvedSettings } from "../../shared/collector-settings.js";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { formatDuration } from "../../shared/duration.js";
import { forwardSummary } from "../../shared/forward-settings.js";
import { sameStore } from "../../shared/store-path.js";

/** How long a start waits for the adopted collector's health before comparing its store alone. */
const HEALTH_TIMEOUT_MS = 2_000;

const onOff = (value: boolean) => (value ? "on" : "off");
const orNone = (text: string) => (text === "" ? "none" : text);

/**
 * The settings in which the running collector a start adopts differs from what the start
 * asked for, each as `--flag running value (asked for value)`, the asked value marked when it
 * is the default (nothing the user typed). Host and port are equal: they are how it was found.
 * The store comes from the registry; the rest from the collector's health, and a setting its
 * health does not report (an older collector) is not compared.
 */
export function settingDifferences(
  { settings: asked, sources }: ResolvedSettings,
  running: RegistryEntry,
  health: Pick<HealthRecord, "retention" | "configuration"> | null,
): string[] {
  const differences: string[] = [];
  const differ = (flag: string, setting: keyof CollectorSettings, runs: string, wanted: string) => {
    const what = sources[setting] === "default" ? `${wanted}, the default` : wanted;
    if (runs !== wanted) differences.push(`${flag} ${runs} (asked for ${what})`);
  };
  if (!sameStore(running.dbPath, asked.dbPath)) differ("--db", "dbPath", running.dbPath, asked.dbPath);
  if (health === null) return differences;
  const config = health.configuration ?? {};
  if (health.retention) {
    differ("--retention", "retentionMs", formatDuration(health.retention.maxAgeMs), formatDuration(asked.retentionMs));
    differ("--max-db-size", "maxDbBytes", formatByteSize(health.retention.maxBytes), formatByteSize(asked.maxDbBytes));
  }
  if (config.maxBodySize) {
    differ("--max-body-size", "maxBodyBytes", String(config.maxBodySize.value), formatByteSize(asked.maxBodyBytes));
  }
  if (config.otlpStandardPorts) {
    differ(
      "--otlp-standard-ports",
      "otlpStandardPorts",
      onOff(config.otlpStandardPorts.value === true),
      onOff(asked.otlpStandardPorts),
    );
  }
  // Forwarding is reported only when a collector has it; header values are shown masked on both sides.
  const wanted = asked.forward.length === 0 ? null : forwardSummary(asked.forward);
  const runs = config.forward ? String(config.forward.value) : "";
  differ("--forward", "forward", orNone(runs), orNone(wanted?.urls ?? ""));
  if (wanted !== null && config.forward) {
    differ("--forward-protocol", "forward", String(config.forwardProtocol?.value ?? ""), wanted.protocol);
    differ("--forward-header", "forward", orNone(String(config.forwardHeaders?.value ?? "")), orNone(wanted.headers));
  }
  return differences;
}

/** The warning for adopting `running` when it differs from what was asked, or none. */
export function adoptionWarnings(running: RegistryEntry, differences: string[]): string[] {
  if (differences.length === 0) return [];
  return [
    `adopted the collector already running at ${running.baseUrl} (pid ${running.pid}), which runs with other settings than this start asked for: ${differences.join(", ")}. It keeps its own; to use these, stop it (obs monitor stop --base-url ${running.baseUrl}) and start again.`,
  ];
}

/** What the adopted collector reports about itself, or null when it does not answer in time. */
export async function adoptedHealth(running: RegistryEntry): Promise<HealthRecord | null> {
  const { ObsClient } = await import("../api/obs-client.js");
  return new ObsClient(running.baseUrl, { timeoutMs: HEALTH_TIMEOUT_MS }).health().catch(() => null);
}

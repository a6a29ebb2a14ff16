import type { RegistryEntry } from "../../shared/control-protocol.js";
import { endpointLine } from "../../shared/endpoints.js";
import { uiUrl } from "../../shared/ui-links.js";
import type { TargetFlags } from "../discovery/explicit-target.js";
import { forwardingLines } from "../render/forwarding-lines.js";
import { emitSuccess } from "../render/output.js";
import { runAction } from "./run-action.js";

export type CollectorAddress = TargetFlags;

export function describeCollector(entry: RegistryEntry): string {
  return `${entry.baseUrl}  pid ${entry.pid}  database ${entry.dbPath}  started in ${entry.cwd}`;
}

/**
 * `obs monitor status`: the collector this folder uses, with its CPU and memory. Shell prompts
 * call it on every line, so it loads only discovery and the control client.
 */
export async function monitorStatus(json: boolean, address: CollectorAddress): Promise<number> {
  return runAction(json, "monitor status", async () => {
    const { targetCollector } = await import("../lifecycle/target-collector.js");
    const { askCollector } = await import("../control/control-client.js");
    const collector = await targetCollector(process.cwd(), address);
    // The collector measures itself with pidusage; an old or busy one may not answer.
    const answer = await askCollector(collector.socketPath, { op: "usage" }, 500).catch(() => null);
    const resources = answer?.ok && answer.op === "usage" ? answer.usage : null;
    const forwarding = answer?.ok && answer.op === "usage" ? (answer.forwarding ?? []) : [];
    const uptimeSeconds = Math.max(0, Math.round((Date.now() - Date.parse(collector.startedAt)) / 1000));
    const ui = uiUrl(collector.baseUrl);
    const data = { running: true, collector, uptimeSeconds, process: resources, ui, forwarding };
    const resourceText = resources
      ? `  cpu ${resources.cpuPercent}%  memory ${Math.round(resources.memoryBytes / 1048576)} MiB`
      : "";
    return emitSuccess(
      json,
      "monitor status",
      data,
      [
        `running: ${describeCollector(collector)}`,
        `  up ${uptimeSeconds} s${resourceText}`,
        `  web UI ${ui}`,
        ...(collector.endpoints ?? []).map((endpoint) => `  listens ${endpointLine(endpoint)}`),
        ...forwardingLines(forwarding, "  "),
      ].join("\n"),
    );
  });
}

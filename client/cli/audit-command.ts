import type { CommandModule } from "yargs";
import { parseDuration } from "../../shared/duration.js";
import type { AuditRequest } from "../../shared/query-messages.js";
import { ArgumentError } from "../lifecycle/lifecycle-error.js";
import { emitFailingResult, emitSuccess } from "../render/output.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";
import { since } from "./query-support.js";
import { flagRequest, routeFlags } from "./route-flags.js";

type FailOn = "never" | "error" | "regression";

/** Codes that `--fail-on regression` fails on besides error-severity findings. */
const REGRESSION_CODES = new Set(["new_error_signature", "latency_regression"]);

interface Finding {
  code: string;
  severity: string;
}

/** The findings that meet `--fail-on`: error severity, plus regressions for `regression`. */
export function failingFindings<T extends Finding>(findings: T[], failOn: FailOn): T[] {
  if (failOn === "never") return [];
  return findings.filter(
    (finding) => finding.severity === "error" || (failOn === "regression" && REGRESSION_CODES.has(finding.code)),
  );
}

/** `obs audit`: the collector's deterministic audit of the current window against a baseline. */
export function auditCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "audit",
    describe:
      "Deterministic audit: error traces, new error signatures, latency, log bursts, incomplete traces, silence",
    builder: (argv) =>
      routeFlags(argv, "audit", {
        service: "Only this service.name",
        since: { own: { type: "string", default: "15m", requiresArg: true, describe: "Current window, at most 24h" } },
        baseline: {
          own: {
            type: "string",
            requiresArg: true,
            describe: "Baseline window just before the current one, at most 24h",
            defaultDescription: "same as --since",
          },
        },
        durationMin: "Slow-trace threshold in ms; without it, latency is compared with the baseline",
        until: "End of the current window, ISO 8601 (default now); fixes the windows for repeatable runs",
        "fail-on": {
          own: {
            choices: ["never", "error", "regression"],
            default: "never",
            describe: "Exit 1 on error findings (error), or also on new error signatures and latency regressions",
          },
        },
      }),
    run: async (flags, json) => {
      const current = since(String(flags.since));
      const baseline = flags.baseline === undefined ? current : since(String(flags.baseline), "--baseline");
      if (flags.durationMin !== undefined && !(Number(flags.durationMin) >= 0)) {
        throw new ArgumentError("--duration-min: use a number of milliseconds, 0 or more");
      }
      // The windows are durations on the command line and minutes in the request.
      const request: AuditRequest = {
        lookbackMinutes: parseDuration(current) / 60_000,
        baselineMinutes: parseDuration(baseline) / 60_000,
        ...flagRequest("audit", flags),
      };
      const client = await clientFor(flags);
      const body = await client.audit(request);
      const { renderAuditReport } = await import("../render/audit-report.js");
      const human = renderAuditReport(body.data, client.baseUrl);
      const failing = failingFindings(body.data.findings, flags.failOn as FailOn);
      if (failing.length === 0) return emitSuccess(json, "audit", body.data, human);
      return emitFailingResult(json, "audit", body.data, human, {
        code: "audit_failed",
        message: `${failing.length} finding${failing.length === 1 ? "" : "s"} at or above --fail-on ${flags.failOn}: ${[...new Set(failing.map((finding) => finding.code))].join(", ")}`,
      });
    },
  });
}

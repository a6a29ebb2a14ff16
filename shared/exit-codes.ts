/** CLI and daemon exit codes, exactly as the spec's table defines them. */
export const ExitCode = {
  ok: 0,
  /** Audit findings met --fail-on, or a browser check failed. */
  failed: 1,
  invalidArgument: 2,
  collectorUnavailable: 3,
  storeFailure: 4,
  timeout: 5,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

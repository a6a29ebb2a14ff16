/**
 * Teardown steps that talk to a browser (ending the screencast, a BiDi unsubscribe, whose
 * webdriverio timeout is 180 s) are given a few seconds each: a hung browser must not hold a
 * test, or the run, for minutes. The failure evidence and the session's close come after them.
 */
export const TEARDOWN_STEP_MS = 3_000;

/** Waits until `work` settles (its failure ignored) or `ms` pass, whichever is first. */
export async function settleWithin(work: Promise<unknown> | undefined, ms = TEARDOWN_STEP_MS): Promise<void> {
  if (!work) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

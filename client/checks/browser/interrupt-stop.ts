/**
 * Ctrl+C (SIGINT) or SIGTERM during `obs test` / `obs run`: the drivers run in process groups of
 * their own, so the terminal's signal never reaches them; obs stops them itself, then exits as a
 * process ended by that signal does (128 + its number).
 */
import { killAllDriversNow, stopAllDrivers } from "./driver-process.js";

export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

/** How long the browsers get to stop as a session's close stops them, before they are killed. */
const STOP_TIMEOUT_MS = 5_000;

/**
 * Until the returned function is called, SIGINT and SIGTERM stop every browser obs started and
 * exit. A second signal while they stop kills them at once.
 */
export function stopBrowsersOnSignal(say: (line: string) => void, exit: (code: number) => void): () => void {
  let stopping = false;
  const onSignal = (signal: StopSignal) => {
    const code = SIGNAL_EXIT_CODES[signal];
    if (stopping) {
      killAllDriversNow();
      exit(code);
      return;
    }
    stopping = true;
    say(`obs: ${signal === "SIGINT" ? "interrupted" : "terminated"}; stopping the browsers`);
    void stopAllDrivers(STOP_TIMEOUT_MS).then(() => exit(code));
  };
  const handlers = (Object.keys(SIGNAL_EXIT_CODES) as StopSignal[]).map((signal) => {
    const handler = () => onSignal(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

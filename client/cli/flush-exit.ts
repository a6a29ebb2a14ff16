/**
 * How `obs` ends. `process.exit()` does not wait for a pipe: what the reader has not taken yet
 * (anything past the pipe's 64 KiB buffer) is lost, and the exit code still says 0. So the exit
 * code is set first, and the process exits only once stdout and stderr have handed every byte
 * to the operating system.
 */
import { exitCodeOf } from "../../shared/cli-envelope.js";
import { ExitCode } from "../../shared/exit-codes.js";

/** Resolves once everything written to `stream` so far has been written out (or cannot be). */
export function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  // Writes complete in order, so the callback of an empty write runs after every earlier one.
  return new Promise((resolve) => stream.write("", () => resolve()));
}

/** The error that lost stdout's output, when one did (other than its reader going away). */
let lostOutput: NodeJS.ErrnoException | null = null;

/**
 * Sets the exit code, waits for stdout and stderr to drain, then exits. Output that could not
 * be written (a full disk) turns a success into exit 4: exit 1 would read as audit findings.
 * A command that failed already keeps its own code, the more telling one.
 */
export async function exitWhenFlushed(code: number): Promise<void> {
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // A failed write is reported on a later tick than the write itself.
  await new Promise((resolve) => setImmediate(resolve));
  const final = lostOutput && code === ExitCode.ok ? exitCodeOf("internal") : code;
  // Exit explicitly rather than waiting for the event loop: an idle keep-alive socket or a
  // detached child's handle must not hold the command open after its output is out.
  process.exit(final);
}

/**
 * How a failed write to stdout or stderr ends the command. A reader that goes away early
 * (`obs traces | head -1`) is not a failure of the command: that error is dropped. Any other
 * error writing stdout (ENOSPC, EIO) lost output: it is said in one line on stderr, and the
 * command ends with exit 4 rather than an uncaught exception's stack trace and exit 1. An error
 * writing stderr leaves nowhere to say anything: the command ends with its own exit code.
 */
export function watchWriteErrors(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || lostOutput) return;
    lostOutput = error;
    process.stderr.write(`obs: could not write the output: ${process.env.OBS_DEBUG ? error.stack : error.message}\n`);
  });
  process.stderr.on("error", () => {});
}

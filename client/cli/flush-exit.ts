/**
 * How `obs` ends. `process.exit()` does not wait for a pipe: what the reader has not taken yet
 * (anything past the pipe's 64 KiB buffer) is lost, and the exit code still says 0. So the exit
 * code is set first, and the process exits only once stdout and stderr have handed every byte
 * to the operating system.
 */

/** Resolves once everything written to `stream` so far has been written out (or cannot be). */
export function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  // Writes complete in order, so the callback of an empty write runs after every earlier one.
  return new Promise((resolve) => stream.write("", () => resolve()));
}

/** Sets the exit code, waits for stdout and stderr to drain, then exits. */
export async function exitWhenFlushed(code: number): Promise<void> {
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // Exit explicitly rather than waiting for the event loop: an idle keep-alive socket or a
  // detached child's handle must not hold the command open after its output is out.
  process.exit(code);
}

/**
 * A reader that goes away early (`obs traces | head -1`) is not a failure of the command: the
 * write error is dropped instead of becoming an uncaught exception with a stack trace.
 */
export function ignoreClosedReader(stream: NodeJS.WriteStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

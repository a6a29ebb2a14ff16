import { resolveSettings, type SettingFlags, SettingsError } from "../shared/collector-settings.js";
import type { RegistryEntry } from "../shared/control-protocol.js";
import { ExitCode } from "../shared/exit-codes.js";
import { exposedBindWarning } from "../shared/loopback-host.js";
import { OBS_VERSION } from "../shared/package-root.js";
import { ownStartTicks } from "../shared/process-alive.js";
import { ensureStateDir, StateDirError } from "../shared/state-dir.js";
import { uiUrl } from "../shared/ui-links.js";
import { type CollectorOptions, ListenError, startCollector } from "./collector.js";
import { type ControlSocket, serveControlSocket } from "./control/control-socket.js";
import {
  prepareSocketDir,
  removeRegistry,
  socketDirFor,
  socketPathFor,
  UnsafeSocketDirError,
} from "./control/registry.js";
import { StoreInUseError } from "./control/store-lock.js";
import { writeStatusLine } from "./ingest/write-status.js";
import { SIGNALS } from "./signals/registry.js";
import { StoreOpenError } from "./store/store-errors.js";

/** `127.0.0.1:27686` of `http://127.0.0.1:27686`: how gRPC clients name a target. */
function hostPort(url: string): string {
  return new URL(url).host;
}

export interface ForegroundIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const consoleIo: ForegroundIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

export interface ForegroundOptions extends CollectorOptions {
  /** How often the control socket is looked for, and made again when removed (control-socket.ts). */
  controlSocketCheckMs?: number;
  /**
   * Reports a port another process holds and returns the exit code, in place of obsd's own
   * line and exit 2: `obs monitor start` names the collector that holds it, if one does, and
   * exits 3 as its detached start does. Null leaves it to obsd.
   */
  onPortInUse?: (failure: { host: string; port: number; message: string }) => Promise<number | null>;
}

/**
 * Runs a collector in this process until SIGINT or SIGTERM, then finishes in-flight writes,
 * closes the database and resolves with the exit code.
 */
export async function runForeground(
  flags: SettingFlags,
  { controlSocketCheckMs, onPortInUse, ...options }: ForegroundOptions = {},
  io: ForegroundIo = consoleIo,
): Promise<number> {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  // Bound once the stop handler exists; a writer lost during startup fails the start instead.
  let onWriterLost: (error: Error) => void = () => {};
  // Bound once the stop handler exists; a lock lost before that stops the collector as soon as it does.
  let lockLostEarly: Error | null = null;
  let onStoreLockLost: (error: Error) => void = (error) => {
    lockLostEarly ??= error;
  };
  let settings: ReturnType<typeof resolveSettings>["settings"];
  try {
    const resolved = resolveSettings(flags);
    settings = resolved.settings;
    // Before the store opens: a state folder another user could change is refused, and a
    // collector that cannot have a private control socket does not start.
    ensureStateDir();
    prepareSocketDir(socketDirFor());
    collector = await startCollector(resolved, {
      onWriteStatusChange: (change) => io.err(writeStatusLine(change)),
      onStoreLockLost: (error) => onStoreLockLost(error),
      onNotice: (line) => io.err(line),
      onWriterLost: (error) => onWriterLost(error),
      ...options,
    });
  } catch (error) {
    if (error instanceof ListenError && error.code === "EADDRINUSE" && onPortInUse) {
      const code = await onPortInUse({ host: error.host, port: error.port, message: error.message });
      if (code !== null) return code;
    }
    if (
      error instanceof SettingsError ||
      error instanceof ListenError ||
      error instanceof UnsafeSocketDirError ||
      error instanceof StateDirError ||
      error instanceof StoreInUseError
    ) {
      io.err(`obsd: ${error.message}`);
      return ExitCode.invalidArgument;
    }
    if (error instanceof StoreOpenError) {
      io.err(`obsd: cannot open the store: ${error.message}`);
      return ExitCode.storeFailure;
    }
    throw error;
  }
  const exposed = exposedBindWarning(settings.host);
  if (exposed !== null) io.err(`obsd: warning: ${exposed}`);
  const entry: RegistryEntry = {
    instanceId: collector.identity.instanceId,
    pid: collector.identity.pid,
    cwd: collector.identity.cwd,
    host: collector.host,
    port: collector.port,
    baseUrl: collector.baseUrl,
    // The real path: clients compare stores by it (a symlink to this file is the same store).
    dbPath: collector.storePath,
    version: collector.identity.version,
    startedAt: collector.identity.startedAt,
    startTicks: ownStartTicks(),
    socketPath: socketPathFor(collector.identity.instanceId),
    endpoints: collector.endpoints,
  };
  // The control socket listens and the registry names it before the banner: whoever reads the
  // banner may look the collector up at once.
  let requestStop: () => void = () => {};
  let control: ControlSocket | null = null;
  try {
    control = await serveControlSocket(entry, () => requestStop(), {
      forwarding: collector.forwarding,
      onNotice: (line) => io.err(line),
      ...(controlSocketCheckMs !== undefined ? { checkEveryMs: controlSocketCheckMs } : {}),
    });
  } catch (error) {
    // Without its socket and registry entry, obs could neither find this collector nor stop it:
    // it does not start, and leaves nothing behind (its socket, entry, store lock and owner file).
    io.err(`obsd: cannot serve the control socket at ${entry.socketPath}: ${(error as Error).message}`);
    control?.close();
    removeRegistry(entry);
    await collector.close().catch((closing: Error) => io.err(`obsd: error while stopping: ${closing.message}`));
    return ExitCode.invalidArgument;
  }
  // Signal handlers go in before the banner too: whoever reads "Press Ctrl+C" may signal at once.
  return new Promise((resolve) => {
    let stopping = false;
    let exitCode: number = ExitCode.ok;
    const stop = (reason: string, announce = `obsd: ${reason} received, finishing writes and closing the database`) => {
      // The handlers stay installed while stopping: a second signal (another Ctrl+C, or a
      // service manager's SIGTERM after a shutdown request) must not kill the process mid-close.
      if (stopping) {
        io.err(`obsd: ${reason} received while stopping; still finishing writes`);
        return;
      }
      stopping = true;
      io.err(announce);
      // Leave the registry first, so no client picks a collector that is stopping.
      removeRegistry(entry);
      control?.close();
      collector.close().then(
        () => resolve(exitCode),
        (error: Error) => {
          io.err(`obsd: error while stopping: ${error.message}`);
          resolve(ExitCode.storeFailure);
        },
      );
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    requestStop = () => stop("shutdown request");
    // Nothing restarts the writer: staying up would answer "retry" forever while storing nothing.
    onWriterLost = (error) => {
      exitCode = ExitCode.storeFailure;
      stop("writer lost", `obsd: the writer thread died (${error.message}); nothing more can be stored, stopping`);
    };
    // A store belongs to one collector at a time: another may have taken the lock, and two
    // writers would corrupt what each holds of the metric rollups. Writes are refused from the
    // moment it is lost (503: senders retry); those in flight are stored before the close.
    onStoreLockLost = (error) => {
      exitCode = ExitCode.storeFailure;
      stop(
        "store lock lost",
        `obsd: lost the lock on ${settings.dbPath} (${error.message}); another collector may be writing it, so this one refuses writes and stops`,
      );
    };
    const url = collector.baseUrl;
    io.out(`obsd ${OBS_VERSION} listening on ${url}`);
    io.out(`  ${"Web UI".padEnd(12)} ${uiUrl(url)}`);
    for (const signal of SIGNALS) io.out(`  ${`OTLP ${signal.name}`.padEnd(12)} POST ${url}${signal.path}`);
    io.out(`  OTLP gRPC    ${hostPort(url)}  (the same port; OTEL_EXPORTER_OTLP_PROTOCOL=grpc)`);
    for (const endpoint of collector.endpoints.filter((e) => e.role !== "main")) {
      io.out(
        endpoint.listening
          ? `  Standard     ${endpoint.url}  (${endpoint.role === "otlp-grpc" ? "OTLP/gRPC" : "OTLP/HTTP"} default port; every OTLP transport)`
          : `  Standard     ${endpoint.url}  not listening: ${endpoint.problem}`,
      );
    }
    io.out(`  Query API    GET  ${url}/api/...  (route index ${url}/docs, OpenAPI ${url}/openapi.json)`);
    io.out(`  Database     ${settings.dbPath}`);
    for (const destination of settings.forward) {
      io.out(`  Forwarding   ${destination.url}  (${destination.protocol}; everything stored is also sent there)`);
    }
    if (collector.migrated.length > 0 && collector.migrated[0] !== 1) {
      io.out(`  Migrated the database to schema version ${collector.schemaVersion}`);
    }
    io.out("Press Ctrl+C to stop.");
    if (lockLostEarly !== null) onStoreLockLost(lockLostEarly);
  });
}

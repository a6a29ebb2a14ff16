/**
 * The forwarder thread: reads the outbox on its own read connection and delivers it to every
 * destination, each on its own loop, so a slow or absent upstream holds up neither ingestion,
 * queries, nor the other destinations. Progress goes to the main thread, which hands it to the
 * writer thread to store.
 */
import { parentPort, workerData } from "node:worker_threads";
import { nowNs } from "../../shared/time.js";
import { openReadConnection } from "../store/connection.js";
import { DestinationForwarder } from "./destination-forwarder.js";
import type { ForwardCommand, ForwardMessage, ForwardWorkerData } from "./forward-protocol.js";
import { senderFor } from "./otlp-sender.js";
import { OutboxReader } from "./outbox-reader.js";

if (!parentPort) throw new Error("forward-worker must run as a worker thread");
const port = parentPort;
const data = workerData as ForwardWorkerData;

/** How often the destinations' state and lag are sent for health. */
const STATUS_INTERVAL_MS = 500;

function send(message: ForwardMessage): void {
  port.postMessage(message);
}

const db = openReadConnection(data.dbPath);
const reader = new OutboxReader(db);
const forwarders = data.destinations.map(
  (destination) =>
    new DestinationForwarder({
      destination,
      reader,
      sender: senderFor(destination),
      pollMs: data.pollMs,
      onProgress: (progress) => send({ type: "progress", progress }),
      onNotice: (line) => send({ type: "notice", line }),
    }),
);

function sendStatus(): void {
  try {
    send({ type: "status", destinations: forwarders.map((forwarder) => forwarder.status(nowNs())) });
  } catch {
    // The store could not be read just now; the next status goes out half a second later.
  }
}

const statusTimer = setInterval(sendStatus, STATUS_INTERVAL_MS);
sendStatus();
const running = forwarders.map((forwarder) => forwarder.run());

port.on("message", (command: ForwardCommand) => {
  if (command.type !== "stop") return;
  clearInterval(statusTimer);
  for (const forwarder of forwarders) forwarder.stop();
  void Promise.allSettled(running).then(() => {
    db.close();
    // Idle keep-alive sockets to upstreams would hold the thread open.
    process.exit(0);
  });
});

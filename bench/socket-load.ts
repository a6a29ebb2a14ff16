/**
 * A load generator's HTTP/1.1 client: keep-alive sockets writing requests whose bytes are built
 * before the clock starts, and reading only each answer's status and length.
 *
 * Why not node:http (http-load.ts): on these two-core machines the bench's client shares the
 * cores with obsd, and node:http's request and response objects, header handling and streams
 * cost about 2 µs of CPU per metric point at 100 points a request (bench/metrics, "client CPU
 * µs/point"), a sixth of what obsd itself takes. A load generator is meant to cost next to
 * nothing beside the server it loads, as wrk's C client does; this one does the same work in
 * JavaScript. It understands only what obsd answers: a status line, headers with a
 * Content-Length, and that many bytes of body. Anything else (a chunked answer, a closed
 * connection) fails the run rather than being guessed at.
 */
import { connect, type Socket } from "node:net";

/** One request's bytes: its head and its body, written together. */
export interface PreparedRequest {
  readonly head: Buffer;
  readonly body: Buffer;
}

/** POST requests for `bodies` to `url`, their bytes built now rather than while timed. */
export function preparePosts(url: string, bodies: readonly Buffer[], contentType: string): PreparedRequest[] {
  const { host, pathname } = new URL(url);
  return bodies.map((body) => ({
    head: Buffer.from(
      `POST ${pathname} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`,
      "latin1",
    ),
    body,
  }));
}

const HEAD_END = Buffer.from("\r\n\r\n", "latin1");

/**
 * Reads answers off one socket: each is a head ending in a blank line and a body of its
 * Content-Length. Calls `answered(status)` once per whole answer.
 */
class AnswerReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly answered: (status: number) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const headEnd = this.pending.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = this.pending.toString("latin1", 0, headEnd);
      const status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (length === null) throw new Error(`an answer without Content-Length: ${head.split("\r\n")[0]}`);
      const end = headEnd + HEAD_END.length + Number(length[1]);
      if (this.pending.length < end) return;
      this.pending = this.pending.subarray(end);
      this.answered(status);
    }
  }
}

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), noDelay: true }, () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/**
 * Sends every request, `concurrency` at a time, each on its own keep-alive connection (one
 * request in flight per connection, as node:http's agent does); fails on any answer but 200.
 */
export async function sendAll(url: string, requests: readonly PreparedRequest[], concurrency: number): Promise<void> {
  let next = 0;
  const sockets = await Promise.all(Array.from({ length: Math.min(concurrency, requests.length) }, () => open(url)));
  try {
    await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<void>((resolve, reject) => {
            const send = () => {
              const request = requests[next++];
              if (request === undefined) {
                resolve();
                return;
              }
              socket.cork();
              socket.write(request.head);
              socket.write(request.body);
              socket.uncork();
            };
            const reader = new AnswerReader((status) => {
              if (status !== 200) reject(new Error(`export answered ${status}`));
              else send();
            });
            socket.on("data", (chunk: Buffer) => {
              try {
                reader.push(chunk);
              } catch (error) {
                reject(error);
              }
            });
            socket.on("error", reject);
            socket.on("close", () => reject(new Error("the collector closed a connection mid-run")));
            send();
          }),
      ),
    );
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}

/**
 * Chromium's live screencast over the DevTools protocol: the browser pushes a JPEG whenever the
 * page repaints, so frames show what happens between actions, not only after them. Thin: frames
 * are handed to the caller, which decides which to keep.
 */
import WebSocket from "ws";

export interface Screencast {
  stop(): Promise<void>;
}

interface DevToolsTarget {
  type: string;
  webSocketDebuggerUrl?: string;
}

interface DevToolsMessage {
  id?: number;
  method?: string;
  params?: { data?: string; sessionId?: number };
  error?: { message: string };
}

const CONNECT_TIMEOUT_MS = 5_000;

/** Starts the screencast of the browser's first page; `onFrame` gets each frame's JPEG bytes. */
export async function startScreencast(
  debuggerAddress: string,
  onFrame: (jpeg: Buffer) => void,
  size: { width: number; height: number } = { width: 1280, height: 800 },
): Promise<Screencast> {
  const targets = (await (
    await fetch(`http://${debuggerAddress}/json/list`, { signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS) })
  ).json()) as DevToolsTarget[];
  const page = targets.find((target) => target.type === "page" && target.webSocketDebuggerUrl);
  if (!page?.webSocketDebuggerUrl) throw new Error(`no page to screencast at ${debuggerAddress}`);
  const socket = new WebSocket(page.webSocketDebuggerUrl, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the DevTools connection timed out")), CONNECT_TIMEOUT_MS);
    socket.once("open", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  let nextId = 1;
  const send = (method: string, params: object = {}) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ id: nextId++, method, params }));
  };
  socket.on("message", (raw) => {
    const message = JSON.parse(String(raw)) as DevToolsMessage;
    if (message.method !== "Page.screencastFrame" || !message.params?.data) return;
    // Unacknowledged frames stop the stream, so every frame is acknowledged, kept or not.
    send("Page.screencastFrameAck", { sessionId: message.params.sessionId });
    onFrame(Buffer.from(message.params.data, "base64"));
  });
  // A closed browser closes the socket; that only ends the stream.
  socket.on("error", () => {});
  send("Page.startScreencast", { format: "jpeg", quality: 70, maxWidth: size.width, maxHeight: size.height });
  return {
    stop: async () => {
      if (socket.readyState !== WebSocket.OPEN) return;
      send("Page.stopScreencast");
      await new Promise<void>((resolve) => {
        socket.once("close", () => resolve());
        socket.close();
        setTimeout(resolve, 1_000).unref();
      });
    },
  };
}

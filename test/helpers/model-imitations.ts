/** Local imitations of the model APIs obs speaks: each answers with scripted tool calls in turn and keeps every request. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedCall {
  name: string;
  arguments: object;
}

function openAiReply(call: ScriptedCall, turn: number): object {
  return {
    id: `chatcmpl-${turn}`,
    object: "chat.completion",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: `call_${turn}`,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.arguments) },
            },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  };
}

function anthropicReply(call: ScriptedCall, turn: number): object {
  return {
    id: `msg_${turn}`,
    type: "message",
    role: "assistant",
    content: [{ type: "tool_use", id: `toolu_${turn}`, name: call.name, input: call.arguments }],
    stop_reason: "tool_use",
    usage: { input_tokens: 100, output_tokens: 10 },
  };
}

/**
 * OpenAI's chat completions (base URL ends in /v1, as OPENAI_BASE_URL does) or Anthropic's
 * messages (base URL without a path, as ANTHROPIC_BASE_URL).
 */
export async function modelImitation(protocol: "openai" | "anthropic", calls: ScriptedCall[]) {
  const requests: unknown[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push(JSON.parse(Buffer.concat(chunks).toString()));
      const call = calls[requests.length - 1] ?? { name: "fail", arguments: { reason: "script ended" } };
      const reply = protocol === "openai" ? openAiReply(call, requests.length) : anthropicReply(call, requests.length);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: protocol === "openai" ? `${origin}/v1` : origin,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

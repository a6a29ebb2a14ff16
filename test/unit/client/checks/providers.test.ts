import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { AnthropicProvider } from "../../../../client/checks/providers/anthropic-provider.js";
import {
  type ModelImage,
  type ModelRequest,
  ProviderError,
} from "../../../../client/checks/providers/model-provider.js";
import { OpenAiProvider, TOOL_SCREENSHOT_TEXT } from "../../../../client/checks/providers/openai-provider.js";
import { retryDelayMs } from "../../../../client/checks/providers/provider-http.js";

const FAST = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

/** A local model server: answers each request with the next scripted reply and records what it got. */
async function modelServer(replies: { status: number; body: unknown; headers?: Record<string, string> }[]) {
  const received: { path: string; headers: IncomingMessage["headers"]; body: any }[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
      const reply = replies[Math.min(received.length - 1, replies.length - 1)] as (typeof replies)[number];
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const REQUEST: ModelRequest = {
  system: "you operate a browser",
  messages: [
    { role: "user", content: "Instruction: sign in" },
    {
      role: "assistant",
      content: "Typing.",
      toolCalls: [{ id: "call_1", name: "type", arguments: { index: 1, text: "ada" } }],
    },
    { role: "tool", toolCallId: "call_1", content: "typed" },
    { role: "user", content: "call a tool" },
  ],
  tools: [
    {
      name: "click",
      description: "Click",
      parameters: { type: "object", properties: { index: { type: "integer" } }, required: ["index"] },
    },
  ],
  context: { test: "t", instruction: "sign in", elements: [] },
};

/** A 1x1 PNG: what --vision attaches to the message with the newest snapshot. */
const SCREENSHOT: ModelImage = {
  mediaType: "image/png",
  data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
};

/** The first turn of an instruction: the page is in the first user message, with its screenshot. */
const FIRST_TURN_WITH_SCREENSHOT: ModelRequest = {
  ...REQUEST,
  messages: [{ role: "user", content: "Instruction: sign in\n\npage", image: SCREENSHOT }],
};

/** A later turn: the newest page is in the latest tool result, and only it has a screenshot. */
const LATER_TURN_WITH_SCREENSHOT: ModelRequest = {
  ...REQUEST,
  messages: [
    { role: "user", content: "Instruction: sign in" },
    { role: "assistant", content: null, toolCalls: [{ id: "call_1", name: "click", arguments: { index: 1 } }] },
    { role: "tool", toolCallId: "call_1", content: "clicked [1]" },
    { role: "assistant", content: null, toolCalls: [{ id: "call_2", name: "click", arguments: { index: 2 } }] },
    { role: "tool", toolCallId: "call_2", content: "clicked [2]\n\npage", image: SCREENSHOT },
  ],
};

const OPENAI_REPLY = {
  id: "chatcmpl-1",
  object: "chat.completion",
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_2", type: "function", function: { name: "click", arguments: '{"index":3}' } }],
      },
    },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
};

const ANTHROPIC_REPLY = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  content: [
    { type: "text", text: "Clicking sign in." },
    { type: "tool_use", id: "toolu_2", name: "click", input: { index: 3 } },
  ],
  stop_reason: "tool_use",
  usage: { input_tokens: 140, output_tokens: 11 },
};

describe("model providers against local servers speaking their protocols", () => {
  describe("OpenAI-compatible chat completions", () => {
    it("sends the conversation and tools, and maps the tool call and usage back", async () => {
      const server = await modelServer([{ status: 200, body: OPENAI_REPLY }]);
      try {
        const answer = await new OpenAiProvider("gpt-test", "sk-test", `${server.url}/v1`, FAST).complete(REQUEST);
        expect(answer).to.deep.equal({
          text: null,
          toolCalls: [{ id: "call_2", name: "click", arguments: { index: 3 } }],
          usage: { inputTokens: 120, outputTokens: 9 },
        });
        const [sent] = server.received;
        expect(sent?.path).to.equal("/v1/chat/completions");
        expect(sent?.headers.authorization).to.equal("Bearer sk-test");
        expect(sent?.body.model).to.equal("gpt-test");
        expect(sent?.body.messages).to.deep.equal([
          { role: "system", content: "you operate a browser" },
          { role: "user", content: "Instruction: sign in" },
          {
            role: "assistant",
            content: "Typing.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "type", arguments: '{"index":1,"text":"ada"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "typed" },
          { role: "user", content: "call a tool" },
        ]);
        expect(sent?.body.tools).to.deep.equal([
          {
            type: "function",
            function: { name: "click", description: "Click", parameters: REQUEST.tools[0]?.parameters },
          },
        ]);
      } finally {
        await server.close();
      }
    });

    it("sends no image without --vision", async () => {
      const server = await modelServer([{ status: 200, body: OPENAI_REPLY }]);
      try {
        await new OpenAiProvider("m", null, server.url, FAST).complete(REQUEST);
        expect(JSON.stringify(server.received[0]?.body)).not.to.match(/image_url|data:image/);
      } finally {
        await server.close();
      }
    });

    it("sends a screenshot as an image_url part of the user message that carries the page", async () => {
      const server = await modelServer([{ status: 200, body: OPENAI_REPLY }]);
      try {
        await new OpenAiProvider("m", null, server.url, FAST).complete(FIRST_TURN_WITH_SCREENSHOT);
        expect(server.received[0]?.body.messages).to.deep.equal([
          { role: "system", content: "you operate a browser" },
          {
            role: "user",
            content: [
              { type: "text", text: "Instruction: sign in\n\npage" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${SCREENSHOT.data}` } },
            ],
          },
        ]);
      } finally {
        await server.close();
      }
    });

    it("sends a tool result as text and its screenshot in a user message right after it", async () => {
      const server = await modelServer([{ status: 200, body: OPENAI_REPLY }]);
      try {
        await new OpenAiProvider("m", null, server.url, FAST).complete(LATER_TURN_WITH_SCREENSHOT);
        const messages = server.received[0]?.body.messages as { role: string; content: unknown }[];
        expect(messages.map((message) => message.role)).to.deep.equal([
          "system",
          "user",
          "assistant",
          "tool",
          "assistant",
          "tool",
          "user",
        ]);
        expect(messages[1]).to.deep.equal({ role: "user", content: "Instruction: sign in" });
        expect(messages[3]).to.deep.equal({ role: "tool", tool_call_id: "call_1", content: "clicked [1]" });
        expect(messages[5]).to.deep.equal({ role: "tool", tool_call_id: "call_2", content: "clicked [2]\n\npage" });
        expect(messages[6]).to.deep.equal({
          role: "user",
          content: [
            { type: "text", text: TOOL_SCREENSHOT_TEXT },
            { type: "image_url", image_url: { url: `data:image/png;base64,${SCREENSHOT.data}` } },
          ],
        });
        expect(JSON.stringify(messages).split(SCREENSHOT.data)).to.have.length(2);
      } finally {
        await server.close();
      }
    });

    it("retries 429 and 500 with backoff, then succeeds", async () => {
      const server = await modelServer([
        { status: 429, body: { error: { message: "rate limited" } }, headers: { "retry-after": "0" } },
        { status: 500, body: { error: { message: "boom" } } },
        { status: 200, body: OPENAI_REPLY },
      ]);
      try {
        const answer = await new OpenAiProvider("m", null, server.url, FAST).complete(REQUEST);
        expect(answer.toolCalls[0]?.name).to.equal("click");
        expect(server.received).to.have.length(3);
        expect(server.received[0]?.headers.authorization).to.equal(undefined);
      } finally {
        await server.close();
      }
    });

    it("fails at once on a 401, and after the last attempt on repeated 503s", async () => {
      const refused = await modelServer([{ status: 401, body: { error: { message: "bad key" } } }]);
      const down = await modelServer([{ status: 503, body: { error: { message: "overloaded" } } }]);
      try {
        const unauthorised = await new OpenAiProvider("m", "k", refused.url, FAST).complete(REQUEST).catch((e) => e);
        expect(unauthorised).to.be.instanceOf(ProviderError);
        expect(unauthorised.status).to.equal(401);
        expect(refused.received).to.have.length(1);
        const unavailable = await new OpenAiProvider("m", "k", down.url, FAST).complete(REQUEST).catch((e) => e);
        expect(unavailable.message).to.match(/^gave up after 3 attempts: .* answered 503/);
        expect(down.received).to.have.length(3);
      } finally {
        await refused.close();
        await down.close();
      }
    });
  });

  describe("Anthropic messages", () => {
    it("sends system, merged user turns, tool results and tools; maps tool_use and usage back", async () => {
      const server = await modelServer([{ status: 200, body: ANTHROPIC_REPLY }]);
      try {
        const answer = await new AnthropicProvider("claude-test", "ak-test", server.url, FAST).complete(REQUEST);
        expect(answer).to.deep.equal({
          text: "Clicking sign in.",
          toolCalls: [{ id: "toolu_2", name: "click", arguments: { index: 3 } }],
          usage: { inputTokens: 140, outputTokens: 11 },
        });
        const [sent] = server.received;
        expect(sent?.path).to.equal("/v1/messages");
        expect(sent?.headers["x-api-key"]).to.equal("ak-test");
        expect(sent?.headers["anthropic-version"]).to.equal("2023-06-01");
        expect(sent?.body).to.deep.include({ model: "claude-test", system: "you operate a browser", max_tokens: 1024 });
        expect(sent?.body.messages).to.deep.equal([
          { role: "user", content: [{ type: "text", text: "Instruction: sign in" }] },
          {
            role: "assistant",
            content: [
              { type: "text", text: "Typing." },
              { type: "tool_use", id: "call_1", name: "type", input: { index: 1, text: "ada" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "call_1", content: "typed" },
              { type: "text", text: "call a tool" },
            ],
          },
        ]);
        expect(sent?.body.tools).to.deep.equal([
          { name: "click", description: "Click", input_schema: REQUEST.tools[0]?.parameters },
        ]);
      } finally {
        await server.close();
      }
    });

    it("sends no image without --vision", async () => {
      const server = await modelServer([{ status: 200, body: ANTHROPIC_REPLY }]);
      try {
        await new AnthropicProvider("m", "k", server.url, FAST).complete(REQUEST);
        expect(JSON.stringify(server.received[0]?.body)).not.to.match(/"image"|base64/);
      } finally {
        await server.close();
      }
    });

    it("sends a screenshot as an image block in the user message that carries the page", async () => {
      const server = await modelServer([{ status: 200, body: ANTHROPIC_REPLY }]);
      try {
        await new AnthropicProvider("m", "k", server.url, FAST).complete(FIRST_TURN_WITH_SCREENSHOT);
        expect(server.received[0]?.body.messages).to.deep.equal([
          {
            role: "user",
            content: [
              { type: "text", text: "Instruction: sign in\n\npage" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: SCREENSHOT.data } },
            ],
          },
        ]);
      } finally {
        await server.close();
      }
    });

    it("sends a screenshot inside the latest tool_result's content, beside its text; older results stay text", async () => {
      const server = await modelServer([{ status: 200, body: ANTHROPIC_REPLY }]);
      try {
        await new AnthropicProvider("m", "k", server.url, FAST).complete(LATER_TURN_WITH_SCREENSHOT);
        const messages = server.received[0]?.body.messages as { role: string; content: unknown[] }[];
        expect(messages.map((message) => message.role)).to.deep.equal([
          "user",
          "assistant",
          "user",
          "assistant",
          "user",
        ]);
        expect(messages[2]?.content).to.deep.equal([
          { type: "tool_result", tool_use_id: "call_1", content: "clicked [1]" },
        ]);
        expect(messages[4]?.content).to.deep.equal([
          {
            type: "tool_result",
            tool_use_id: "call_2",
            content: [
              { type: "text", text: "clicked [2]\n\npage" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: SCREENSHOT.data } },
            ],
          },
        ]);
      } finally {
        await server.close();
      }
    });

    it("retries a 529 overload and a 429, then succeeds", async () => {
      const server = await modelServer([
        { status: 529, body: { type: "error", error: { type: "overloaded_error" } } },
        { status: 429, body: { type: "error", error: { type: "rate_limit_error" } } },
        { status: 200, body: ANTHROPIC_REPLY },
      ]);
      try {
        const answer = await new AnthropicProvider("m", "k", server.url, FAST).complete(REQUEST);
        expect(answer.toolCalls).to.have.length(1);
        expect(server.received).to.have.length(3);
      } finally {
        await server.close();
      }
    });
  });

  it("backs off exponentially with jitter, capped, and honours Retry-After", () => {
    const policy = { attempts: 5, baseDelayMs: 500, maxDelayMs: 20_000 };
    expect(retryDelayMs(1, null, policy, () => 0)).to.equal(250);
    expect(retryDelayMs(3, null, policy, () => 1)).to.equal(2000);
    expect(retryDelayMs(10, null, policy, () => 1)).to.equal(20_000);
    expect(retryDelayMs(1, "7", policy)).to.equal(7000);
    expect(retryDelayMs(1, "120", policy)).to.equal(20_000);
  });
});

/** Minimal HTTP calls for load generation: keep-alive agents, bodies discarded, status only. */
import { type Agent, request } from "node:http";

export function postBody(agent: Agent, url: string, body: Buffer, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": contentType, "content-length": body.length } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export function getStatus(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The JSON body of a GET that must answer 200. */
export function getJson(agent: Agent, url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${url} answered ${res.statusCode}`));
        else resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/** Posts every body to `url`, `concurrency` at a time over `agent`; fails on any answer but 200. */
export async function postAll(
  agent: Agent,
  url: string,
  bodies: Buffer[],
  contentType: string,
  concurrency: number,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const status = await postBody(agent, url, bodies[next++] as Buffer, contentType);
        if (status !== 200) throw new Error(`export answered ${status}`);
      }
    }),
  );
}

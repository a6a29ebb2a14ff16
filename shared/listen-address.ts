import { lookup } from "node:dns/promises";

/**
 * The address a server given `host` listens on: the first one the name resolves to, as
 * `net.Server.listen` takes it (an address resolves to itself). Null when it does not resolve.
 */
async function listenAddress(host: string): Promise<string | null> {
  try {
    return (await lookup(host)).address;
  } catch {
    return null;
  }
}

/**
 * Whether servers given these two hosts listen on the same address: the same text, or names
 * that resolve to the same first address (`localhost` and `127.0.0.1` on most machines). A
 * start that compared the text alone took the collector it should adopt for a stranger on
 * its port.
 */
export async function sameListenAddress(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [first, second] = await Promise.all([listenAddress(a), listenAddress(b)]);
  return first !== null && first === second;
}

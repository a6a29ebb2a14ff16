import { hideUrlPasswords } from "./url-passwords.js";
/**
 * Where a collector forwards what it stores (`--forward URL`, repeatable), how (the OTLP
 * protocol), and with which request headers (an upstream's API key). Parsed here, shared by
 * obsd's settings, `obs monitor start` and the forwarder; header values are secrets and are
 * shown only masked (`forwardSummary`).
 */

export const FORWARD_PROTOCOLS = ["http/protobuf", "http/json", "grpc"] as const;
export type ForwardProtocol = (typeof FORWARD_PROTOCOLS)[number];
export const DEFAULT_FORWARD_PROTOCOL: ForwardProtocol = "http/protobuf";

/** One upstream: an OTLP endpoint's base URL (`/v1/traces` and the like are appended for HTTP). */
export interface ForwardDestination {
  /** The base URL as given, without a trailing slash. */
  url: string;
  protocol: ForwardProtocol;
  /** Request headers, in the order given; values are secrets. */
  headers: [string, string][];
}

export class ForwardSettingsError extends Error {
  override name = "ForwardSettingsError";
}

/** A base URL: http or https, no query or fragment. */
export function parseForwardUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ForwardSettingsError(
      `invalid --forward URL "${hideUrlPasswords(text)}": give an http:// or https:// address`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ForwardSettingsError(
      `invalid --forward URL "${hideUrlPasswords(text)}": only http:// and https:// are supported`,
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ForwardSettingsError(
      `invalid --forward URL "${hideUrlPasswords(text)}": it may not carry a query or a fragment`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    // The text is not repeated: it holds the credentials.
    throw new ForwardSettingsError(
      "invalid --forward URL: put credentials in --forward-header, not in the URL (URLs are shown in status and logs)",
    );
  }
  return url.href.replace(/\/+$/, "");
}

export function parseForwardProtocol(text: string): ForwardProtocol {
  const value = text.trim().toLowerCase();
  if ((FORWARD_PROTOCOLS as readonly string[]).includes(value)) return value as ForwardProtocol;
  throw new ForwardSettingsError(`invalid --forward-protocol "${text}": use ${FORWARD_PROTOCOLS.join(", ")}`);
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * Headers the forwarder sets itself, and those of the connection rather than the request
 * (HTTP/2, which gRPC runs on, refuses them): a user's value would break every send.
 */
const RESERVED_HEADERS = new Set([
  "content-type",
  "content-encoding",
  "content-length",
  "host",
  "te",
  "grpc-encoding",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

/** `K=V`: the name a valid HTTP token, the value printable ASCII. */
export function parseForwardHeader(text: string): [string, string] {
  const at = text.indexOf("=");
  const name = (at < 0 ? "" : text.slice(0, at)).trim();
  if (at < 0 || !HEADER_NAME.test(name)) {
    throw new ForwardSettingsError(
      "invalid --forward-header: use NAME=VALUE with a header name of letters, digits or -",
    );
  }
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    throw new ForwardSettingsError(
      `invalid --forward-header: ${name.toLowerCase()} is set by obs or the connection, not per request`,
    );
  }
  const value = text.slice(at + 1).trim();
  // Neither the value nor the text is quoted in the message: it is a secret. HTTP allows
  // visible ASCII, spaces and tabs in a value (Node refuses the rest when sending).
  if (!/^[\t\x20-\x7e]*$/.test(value)) {
    throw new ForwardSettingsError(
      `invalid --forward-header ${name}: the value may hold only printable ASCII characters, spaces and tabs`,
    );
  }
  return [name.toLowerCase(), value];
}

/**
 * Environment lists: OBS_FORWARD is URLs separated by commas or spaces; OBS_FORWARD_HEADERS is
 * `K=V` pairs separated by commas, as OTEL_EXPORTER_OTLP_HEADERS, values percent-decoded.
 */
export function splitForwardUrls(text: string): string[] {
  return text.split(/[\s,]+/).filter((part) => part !== "");
}

export function splitForwardHeaders(text: string): string[] {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const at = part.indexOf("=");
      if (at < 0) return part;
      try {
        return `${part.slice(0, at)}=${decodeURIComponent(part.slice(at + 1))}`;
      } catch {
        return part;
      }
    });
}

/** Every destination with the same protocol and headers (flags give them once for all). */
export function forwardDestinations(
  urls: string[],
  protocol: string | undefined,
  headers: string[],
): ForwardDestination[] {
  const parsedProtocol =
    protocol === undefined || protocol === "" ? DEFAULT_FORWARD_PROTOCOL : parseForwardProtocol(protocol);
  const parsedHeaders = headers.map(parseForwardHeader);
  const seen = new Set<string>();
  const destinations: ForwardDestination[] = [];
  for (const text of urls) {
    const url = parseForwardUrl(text);
    if (seen.has(url)) continue;
    seen.add(url);
    destinations.push({ url, protocol: parsedProtocol, headers: parsedHeaders });
  }
  if (destinations.length === 0 && (protocol || headers.length > 0)) {
    throw new ForwardSettingsError("--forward-protocol and --forward-header need a --forward URL");
  }
  return destinations;
}

/**
 * A destination's key in the store (forward_destinations.destination): its URL, so a change of
 * protocol keeps what waits for it.
 */
export function destinationKey(destination: Pick<ForwardDestination, "url">): string {
  return destination.url;
}

/** For status and health: URLs, protocol, header names with masked values. */
export function forwardSummary(destinations: ForwardDestination[]): {
  urls: string;
  protocol: string;
  headers: string;
} {
  const first = destinations[0];
  return {
    urls: destinations.map((d) => d.url).join(", "),
    protocol: first?.protocol ?? DEFAULT_FORWARD_PROTOCOL,
    headers: (first?.headers ?? []).map(([name]) => `${name}=***`).join(", "),
  };
}

/**
 * Where a collector listens, as `/api/health`, `obs status --json`, `obs monitor status` and the
 * start banner list it. Every port a collector opens serves every OTLP transport (the HTTP/2
 * preface tells gRPC from HTTP/1.1 per connection); the standard OTLP ports are opened only on
 * request (`--otlp-standard-ports`), and one that is taken is listed with why.
 */
export type OtlpProtocol = "grpc" | "http/protobuf" | "http/json";

/** Every transport served on a port obsd opens. */
export const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ["grpc", "http/protobuf", "http/json"];

/** The OTLP specification's default ports: 4317 for gRPC, 4318 for HTTP. */
export const STANDARD_PORTS = { grpc: 4317, http: 4318 } as const;

export interface CollectorEndpoint {
  /** `main`: the collector's own port (also the query API); the others are the OTLP standard ports. */
  role: "main" | "otlp-grpc" | "otlp-http";
  url: string;
  port: number;
  protocols: OtlpProtocol[];
  /** False for a standard port that could not be opened (`problem` says why); the collector runs on without it. */
  listening: boolean;
  problem: string | null;
}

/** One line per endpoint, for the banner and human status output. */
export function endpointLine(endpoint: CollectorEndpoint): string {
  const what = endpoint.role === "main" ? "OTLP gRPC + HTTP, query API" : `OTLP standard port (${endpoint.role})`;
  return endpoint.listening
    ? `${endpoint.url}  ${what}: ${endpoint.protocols.join(", ")}`
    : `${endpoint.url}  ${what}: not listening (${endpoint.problem})`;
}

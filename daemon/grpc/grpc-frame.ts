/**
 * gRPC's length-prefixed messages (PROTOCOL-HTTP2.md, "Length-Prefixed-Message"): one byte
 * saying whether the message is compressed, four bytes of big-endian length, then the message.
 * A unary call carries exactly one. The length is checked against the cap as soon as its five
 * bytes arrive, so an oversized message is refused before any of it is held.
 */
import { IngestError } from "../ingest/ingest-errors.js";

const HEADER_BYTES = 5;

/** A message framed for the wire, uncompressed. */
export function frameMessage(message: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(0, 0);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

export interface UnaryMessage {
  compressed: boolean;
  message: Buffer;
}

/** Gathers the one message of a unary request from the chunks of its stream. */
export class UnaryMessageReader {
  private readonly chunks: Buffer[] = [];
  private held = 0;
  private declared: { compressed: boolean; length: number } | null = null;

  /** `maxBytes`: the largest message (as sent, so compressed when it is) accepted. */
  constructor(private readonly maxBytes: number) {}

  /** Adds a chunk; throws an IngestError (too-large) once the declared length is over the cap. */
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.declared === null && this.held >= HEADER_BYTES) {
      const header = this.take().subarray(0, HEADER_BYTES);
      const flag = header.readUInt8(0);
      if (flag > 1) throw new IngestError("invalid-payload", `invalid gRPC message: compressed flag ${flag}`);
      this.declared = { compressed: flag === 1, length: header.readUInt32BE(1) };
      if (this.declared.length > this.maxBytes) {
        throw new IngestError(
          "too-large",
          `the gRPC message (${this.declared.length} bytes) is larger than the ${this.maxBytes}-byte limit`,
        );
      }
    }
    if (this.declared !== null && this.held > HEADER_BYTES + this.declared.length) {
      throw new IngestError("invalid-payload", "invalid gRPC request: a unary call carries one message");
    }
  }

  /** The message, once the stream has ended; throws an IngestError when it is missing or cut off. */
  finish(): UnaryMessage {
    if (this.declared === null) {
      throw new IngestError("invalid-payload", "invalid gRPC request: the stream ended before a message");
    }
    const whole = this.take();
    if (whole.length < HEADER_BYTES + this.declared.length) {
      throw new IngestError("invalid-payload", "invalid gRPC request: the message was cut off");
    }
    return { compressed: this.declared.compressed, message: whole.subarray(HEADER_BYTES) };
  }

  private take(): Buffer {
    if (this.chunks.length > 1) {
      const whole = Buffer.concat(this.chunks);
      this.chunks.length = 0;
      this.chunks.push(whole);
    }
    return this.chunks[0] ?? Buffer.alloc(0);
  }
}

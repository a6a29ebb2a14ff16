/** Reads the pixels of the PNGs browsers write (8-bit RGB or RGBA, not interlaced), for tests that compare regions. */
import { inflateSync } from "node:zlib";

export interface Pixels {
  width: number;
  height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  channels: number;
  rows: Buffer[];
}

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const [toLeft, toUp, toUpLeft] = [Math.abs(estimate - left), Math.abs(estimate - up), Math.abs(estimate - upLeft)];
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}

export function decodePng(png: Buffer): Pixels {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const chunk = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = chunk.readUInt32BE(0);
      height = chunk.readUInt32BE(4);
      const [depth, colour, , , interlace] = [chunk[8], chunk[9], chunk[10], chunk[11], chunk[12]];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) {
        throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
      }
      channels = colour === 6 ? 4 : 3;
    } else if (type === "IDAT") data.push(chunk);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const rows: Buffer[] = [];
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)] as number;
    const row = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? (row[x - channels] as number) : 0;
      const up = previous[x] as number;
      const upLeft = x >= channels ? (previous[x - channels] as number) : 0;
      const predictor = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter] as number;
      row[x] = ((row[x] as number) + predictor) & 255;
    }
    rows.push(row);
    previous = row;
  }
  return { width, height, channels, rows };
}

/** Whether two screenshots have the same pixels inside a rectangle (CSS pixels times `scale`). */
export function sameRegion(
  a: Pixels,
  b: Pixels,
  rect: { x: number; y: number; width: number; height: number },
  scale = 1,
): boolean {
  const [left, top] = [Math.floor(rect.x * scale), Math.floor(rect.y * scale)];
  const [right, bottom] = [Math.ceil((rect.x + rect.width) * scale), Math.ceil((rect.y + rect.height) * scale)];
  for (let y = top; y < bottom; y++) {
    const [rowA, rowB] = [a.rows[y], b.rows[y]];
    if (!rowA || !rowB) return false;
    if (
      !rowA.subarray(left * a.channels, right * a.channels).equals(rowB.subarray(left * b.channels, right * b.channels))
    )
      return false;
  }
  return true;
}

/** Byte sizes for limits such as `--max-db-size 1GiB`. Binary (KiB) and decimal (KB) units. */

const UNIT_BYTES: Record<string, number> = {
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

const SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;

export class ByteSizeError extends Error {
  override name = "ByteSizeError";
}

export function parseByteSize(text: string): number {
  const match = SIZE_PATTERN.exec(text.trim());
  const unit = (match?.[2] ?? "").toLowerCase() || "b";
  const factor = UNIT_BYTES[unit];
  if (!match || factor === undefined) {
    throw new ByteSizeError(
      `invalid size "${text}": use a number and a unit (B, KiB, MiB, GiB, KB, MB, GB), e.g. 1GiB`,
    );
  }
  const bytes = Math.floor(Number(match[1]) * factor);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new ByteSizeError(`invalid size "${text}": must be greater than zero`);
  }
  return bytes;
}

export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}

/** A size for people, in MiB with one decimal (`412.3 MiB`), as status lines and messages print it. */
export function formatMebibytes(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

/**
 * 32-bit FNV-1a of bytes[from, to): cheap, allocation-free and stable across versions, for
 * hashes the store keeps (hashed postings, hashed-postings.ts) or only counts with (the value
 * dictionary's samples, attribute-values.ts). Not collision-resistant: every user of it
 * checks or tolerates a collision.
 */
export function fnv1a32(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  return hash >>> 0;
}

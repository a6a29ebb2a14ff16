/**
 * The text an identity is hashed or looked up by, from its parts. Parts joined with NUL, as
 * stored hashes were always made (so they stay the same), unless a part holds a NUL itself:
 * then `a\0b` + `c` and `a` + `b\0c` would be one identity, and a second record acknowledged
 * as a resend of the first would be lost. Those are keyed by their JSON array instead, which
 * holds no NUL, so it never equals a joined key (that holds one between every two parts). Pure.
 */
export function identityKey(parts: readonly (string | number | bigint | boolean)[]): string {
  for (const part of parts) {
    if (typeof part === "string" && part.includes("\u0000")) return JSON.stringify(parts.map(String));
  }
  return parts.join("\u0000");
}

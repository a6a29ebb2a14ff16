/**
 * Whether a string holds half of a surrogate pair. OTLP/JSON can carry one (`\ud800`), but
 * UTF-8 cannot: SQLite is handed bytes that are not UTF-8 for it, and the text does not come
 * back the same.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first `limit` UTF-16 units of `text`, less the first half of a surrogate pair the limit
 * would split: a character outside the BMP is two units, and its first half alone is not text.
 */
export function sliceWhole(text: string, limit: number): string {
  const cut = text.slice(0, limit);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * Whether a string holds half of a surrogate pair. OTLP/JSON can carry one (`\ud800`), but
 * UTF-8 cannot: SQLite is handed bytes that are not UTF-8 for it, and the text does not come
 * back the same.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

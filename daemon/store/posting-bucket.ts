/** Rows per posting bucket: entries of recent rows share a small region of the index. */
export const POSTING_BUCKET_ROWS = 8192;

export function postingBucket(rowId: number): number {
  return Math.floor(rowId / POSTING_BUCKET_ROWS);
}

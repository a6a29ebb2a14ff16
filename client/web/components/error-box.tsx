/** A failed request, in the collector's own words. */
export function ErrorBox({ error }: { error: Error | undefined }) {
  if (!error) return null;
  return (
    <div class="error-box" role="alert">
      {error.message}
    </div>
  );
}

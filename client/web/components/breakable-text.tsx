/**
 * A dotted name (`payment.provider`, `http.server.request.duration`) that may wrap after its
 * dots rather than mid-word: a `<wbr>` follows each dot. Text only; the name is telemetry.
 */
import { Fragment } from "preact";

export function BreakableText({ text }: { text: string }) {
  const parts = text.split(".");
  return (
    <bdi>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 && (
            <>
              .<wbr />
            </>
          )}
        </Fragment>
      ))}
    </bdi>
  );
}

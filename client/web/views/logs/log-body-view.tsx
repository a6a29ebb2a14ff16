import { useState } from "preact/hooks";
import type { JsonValue } from "../../../../shared/api-records.js";
import { bodyText, foldedText } from "../../format/log-body.js";

/**
 * A log body as text (never markup): a string inline, a map or array as indented JSON in a
 * <pre>; a long one folded, with "show all".
 */
export function LogBody({ body }: { body: JsonValue }) {
  const [open, setOpen] = useState(false);
  const { kind, text } = bodyText(body);
  if (kind === "empty") return <span class="muted">(no body)</span>;
  const folded = open ? null : foldedText(text);
  const shown = folded ?? text;
  const toggle = (folded !== null || open) && (
    <button type="button" class="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
      {open ? "show less" : `show all (${text.length} chars)`}
    </button>
  );
  return (
    <div class={`log-body log-body-${kind}`}>
      {kind === "structured" ? (
        <pre>
          <bdi>{folded !== null ? `${shown}…` : shown}</bdi>
        </pre>
      ) : (
        <bdi>{folded !== null ? `${shown}…` : shown}</bdi>
      )}
      {toggle}
    </div>
  );
}

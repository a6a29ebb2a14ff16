import type { ComponentChildren } from "preact";

/** A view's title row: the title, then the view's controls (filters, time range, live). */
export function ViewHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="view-header">
      <h1>{title}</h1>
      <div class="view-controls">{children}</div>
    </div>
  );
}

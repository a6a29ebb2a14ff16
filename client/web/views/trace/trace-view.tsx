import { ViewHeader } from "../../components/view-header.js";
import type { Route } from "../../routing/router.js";

export function TraceView({ route }: { route: Route }) {
  return (
    <section class="view" aria-label="Trace">
      <ViewHeader title="Trace" />
      <p class="muted">Not built yet ({route.href}).</p>
    </section>
  );
}

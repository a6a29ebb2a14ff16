import { ViewHeader } from "../../components/view-header.js";
import type { Route } from "../../routing/router.js";

export function MetricsView({ route }: { route: Route }) {
  return (
    <section class="view" aria-label="Metrics">
      <ViewHeader title="Metrics" />
      <p class="muted">Not built yet ({route.href}).</p>
    </section>
  );
}

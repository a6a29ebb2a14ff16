import { ViewHeader } from "../../components/view-header.js";
import type { Route } from "../../routing/router.js";

export function TracesView({ route }: { route: Route }) {
  return (
    <section class="view" aria-label="Traces">
      <ViewHeader title="Traces" />
      <p class="muted">Not built yet ({route.href}).</p>
    </section>
  );
}

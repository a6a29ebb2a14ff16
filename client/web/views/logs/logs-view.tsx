import { ViewHeader } from "../../components/view-header.js";
import type { Route } from "../../routing/router.js";

export function LogsView({ route }: { route: Route }) {
  return (
    <section class="view" aria-label="Logs">
      <ViewHeader title="Logs" />
      <p class="muted">Not built yet ({route.href}).</p>
    </section>
  );
}

import { ViewHeader } from "../../components/view-header.js";
import type { Route } from "../../routing/router.js";

export function ServicesView({ route }: { route: Route }) {
  return (
    <section class="view" aria-label="Services">
      <ViewHeader title="Services" />
      <p class="muted">Not built yet ({route.href}).</p>
    </section>
  );
}

import { ViewHeader } from "../../components/view-header.js";
import type { Route } from "../../routing/router.js";

export function AuditView({ route }: { route: Route }) {
  return (
    <section class="view" aria-label="Audit">
      <ViewHeader title="Audit" />
      <p class="muted">Not built yet ({route.href}).</p>
    </section>
  );
}

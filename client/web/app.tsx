/**
 * The page: a header with the views and the collector's name, and the view the address
 * selects. Each view reads its filters from the route and loads its own data.
 */
import type { FunctionComponent } from "preact";
import { UI_PATHS, type UiView } from "../../shared/ui-links.js";
import { ErrorBoundary } from "./components/error-boundary.js";
import { Link } from "./routing/link.js";
import { type Route, useRoute } from "./routing/router.js";
import { AuditView } from "./views/audit/audit-view.js";
import { LogsView } from "./views/logs/logs-view.js";
import { MetricsView } from "./views/metrics/metrics-view.js";
import { ServicesView } from "./views/services/services-view.js";
import { TraceView } from "./views/trace/trace-view.js";
import { TracesView } from "./views/traces/traces-view.js";

const VIEWS: Record<UiView, FunctionComponent<{ route: Route }>> = {
  services: ServicesView,
  traces: TracesView,
  trace: TraceView,
  logs: LogsView,
  metrics: MetricsView,
  audit: AuditView,
};

/** The header's links, in reading order; the trace view is reached from the others. */
const NAV: { view: Exclude<UiView, "trace">; label: string }[] = [
  { view: "services", label: "Services" },
  { view: "traces", label: "Traces" },
  { view: "logs", label: "Logs" },
  { view: "metrics", label: "Metrics" },
  { view: "audit", label: "Audit" },
];

export function App() {
  const route = useRoute();
  const current = route.view === "trace" ? "traces" : route.view;
  const View = route.view === "notFound" ? undefined : VIEWS[route.view];
  return (
    <>
      <header class="app-header">
        <Link class="brand" href={UI_PATHS.services}>
          obs
        </Link>
        <nav aria-label="Views">
          {NAV.map(({ view, label }) => (
            <Link key={view} href={UI_PATHS[view]} aria-current={current === view ? "page" : undefined}>
              {label}
            </Link>
          ))}
        </nav>
      </header>
      <main id="main">
        {View ? (
          <ErrorBoundary resetKey={route.href}>
            <View route={route} />
          </ErrorBoundary>
        ) : (
          <section class="view">
            <h1>Not found</h1>
            <p>
              No view at <code>{route.href}</code>. <Link href={UI_PATHS.services}>Services</Link>
            </p>
          </section>
        )}
      </main>
    </>
  );
}

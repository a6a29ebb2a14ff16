import { render } from "preact";
import { App } from "./app.js";
import { matchRoute } from "./routing/router.js";
import { prefetchTrace } from "./views/trace/trace-prefetch.js";
import "./styles/base.css";

// A trace's page asks for its spans before the first render: the waterfall is what it waits on.
const route = matchRoute(location.pathname, location.search);
if (route.view === "trace" && route.traceId) prefetchTrace(route.traceId);

const root = document.getElementById("app");
if (root) render(<App />, root);

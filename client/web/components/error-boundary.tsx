/**
 * Keeps one view's failure to that view: a render that throws shows its message and a way back
 * to Services instead of blanking the whole page (Preact unmounts the tree above a throw with no
 * boundary). Navigating anywhere (`resetKey` changes: the address) tries the view again.
 */
import { Component, type ComponentChildren } from "preact";
import { UI_PATHS } from "../../../shared/ui-links.js";
import { Link } from "../routing/link.js";

interface Props {
  resetKey: string;
  children?: ComponentChildren;
}

interface State {
  error: Error | undefined;
}

export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: undefined };

  static override getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown): void {
    // The page shows the message; the console keeps the stack for whoever opens the tools.
    console.error(error);
  }

  override componentDidUpdate(previous: Props): void {
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: undefined });
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <section class="view" aria-label="View failed">
        <h1>This view failed</h1>
        <div class="error-box" role="alert">
          {error.message || error.name}
        </div>
        <p>
          <Link href={UI_PATHS.services}>← Back to Services</Link>, or change the address to try again.
        </p>
      </section>
    );
  }
}

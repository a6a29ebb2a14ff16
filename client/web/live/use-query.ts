/**
 * Loading a view's data, once or live. A live view asks again one second after its previous
 * answer arrived (never more than one request a second per view, and never two at once), stops
 * while paused or while the tab is hidden, and drops an answer that a newer request overtook.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** The least time between the starts of two requests of one live view. */
export const LIVE_INTERVAL_MS = 1000;

export interface QueryState<T> {
  data: T | undefined;
  error: Error | undefined;
  /** A request is under way (the first, or a refresh). */
  loading: boolean;
  /** When the shown data arrived (ms since the epoch). */
  updatedAt: number | undefined;
  /** Asks again now. */
  reload: () => void;
}

export interface QueryOptions {
  /** Ask again every LIVE_INTERVAL_MS while true. */
  live?: boolean;
  intervalMs?: number;
}

/**
 * Runs `load` when `key` changes (the request's identity, e.g. its API URL), and again while
 * `live`. The previous data stays on screen until the new answer replaces it.
 */
export function useQuery<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
  options: QueryOptions = {},
): QueryState<T> {
  const [state, setState] = useState<Omit<QueryState<T>, "reload">>({
    data: undefined,
    error: undefined,
    loading: true,
    updatedAt: undefined,
  });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const live = options.live === true;
  const interval = Math.max(options.intervalMs ?? LIVE_INTERVAL_MS, LIVE_INTERVAL_MS);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const run = async () => {
      const started = Date.now();
      setState((previous) => ({ ...previous, loading: true }));
      try {
        const data = await loadRef.current(controller.signal);
        if (stopped) return;
        setState({ data, error: undefined, loading: false, updatedAt: Date.now() });
      } catch (error) {
        if (stopped || (error as Error).name === "AbortError") return;
        setState((previous) => ({ ...previous, error: error as Error, loading: false }));
      }
      if (live && !stopped) schedule(Math.max(interval - (Date.now() - started), 0));
    };
    const schedule = (delay: number) => {
      timer = setTimeout(() => {
        if (document.hidden) schedule(interval);
        else void run();
      }, delay);
    };
    void run();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      controller.abort();
    };
  }, [key, live, interval, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { ...state, reload };
}

/**
 * Loading a view's data, once or live. A live view asks again once its previous answer has
 * arrived and a second has passed since that request started (so never two requests under way,
 * never more than one started a second), stops while paused or while the tab is hidden, and drops
 * the answer of a request that a new key replaced.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** The least time between the starts of two requests of one live view. */
export const LIVE_INTERVAL_MS = 1000;
/** How often a live view checks whether its next request is due (or whether it was resumed). */
const CHECK_EVERY_MS = 200;

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
 * `live`. The previous data stays on screen until the new answer replaces it, or an error: a
 * refresh that fails keeps the data of its key (a collector restarting), a new key's drops the
 * data of the old one (it answered another question: another window, step or metric). Pausing (live
 * turning false) sends nothing; resuming asks again once the interval since the last request
 * has passed.
 */
export function useQuery<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
  options: QueryOptions = {},
): QueryState<T> {
  const [state, setState] = useState<Omit<QueryState<T>, "reload"> & { dataKey: string | undefined }>({
    data: undefined,
    dataKey: undefined,
    error: undefined,
    loading: true,
    updatedAt: undefined,
  });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  // Read by the running loop, so pausing and resuming neither restarts it nor asks again at once.
  const live = options.live === true;
  const liveRef = useRef(live);
  liveRef.current = live;
  /** Set by the loop: starts its checks again if they stopped (the view was paused or never live). */
  const wake = useRef<() => void>(() => {});
  const interval = Math.max(options.intervalMs ?? LIVE_INTERVAL_MS, LIVE_INTERVAL_MS);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let stopped = false;
    let lastStart = 0;
    const run = async () => {
      running = true;
      lastStart = Date.now();
      setState((previous) => ({ ...previous, loading: true }));
      try {
        const data = await loadRef.current(controller.signal);
        if (stopped) return;
        setState({ data, dataKey: key, error: undefined, loading: false, updatedAt: Date.now() });
      } catch (error) {
        if (stopped || (error as Error).name === "AbortError") return;
        setState((previous) =>
          previous.dataKey === key
            ? { ...previous, error: error as Error, loading: false }
            : { data: undefined, dataKey: undefined, error: error as Error, loading: false, updatedAt: undefined },
        );
      } finally {
        running = false;
      }
      if (!stopped) tick();
    };
    // While live, checks a few times a second whether the next request is due: visible, and
    // `interval` after the previous one started. Not live, the checks stop until wake().
    const tick = () => {
      timer = undefined;
      if (!liveRef.current) return;
      timer = setTimeout(() => {
        const due = !document.hidden && Date.now() - lastStart >= interval;
        if (due && liveRef.current) void run();
        else tick();
      }, CHECK_EVERY_MS);
    };
    wake.current = () => {
      if (!stopped && !running && timer === undefined) tick();
    };
    void run();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      controller.abort();
    };
  }, [key, interval, generation]);

  useEffect(() => {
    if (live) wake.current();
  }, [live]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  const { dataKey: _, ...shown } = state;
  return { ...shown, reload };
}

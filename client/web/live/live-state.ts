/**
 * Whether live views update: one switch for the whole UI, so pausing to read a list also stops
 * the others. Kept for the tab's life only (a reload starts live again).
 */
import { useEffect, useState } from "preact/hooks";

let paused = false;
const listeners = new Set<(paused: boolean) => void>();

export function setPaused(value: boolean): void {
  paused = value;
  for (const listener of listeners) listener(paused);
}

/** `[live, setLive]`: live is true unless the person paused. */
export function useLive(): [boolean, (live: boolean) => void] {
  const [value, setValue] = useState(paused);
  useEffect(() => {
    listeners.add(setValue);
    return () => {
      listeners.delete(setValue);
    };
  }, []);
  return [!value, (live: boolean) => setPaused(!live)];
}

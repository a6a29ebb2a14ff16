import { formatClock } from "../format/time.js";
import { useLive } from "../live/live-state.js";

/** Pauses and resumes live updates; says when the shown data arrived. */
export function LiveToggle({ updatedAt }: { updatedAt?: number | undefined }) {
  const [live, setLive] = useLive();
  return (
    <span class="live-toggle">
      <button
        type="button"
        aria-pressed={live}
        onClick={() => setLive(!live)}
        title={live ? "Pause updates" : "Resume"}
      >
        {live ? "❚❚ Pause" : "▶ Live"}
      </button>
      {updatedAt !== undefined && <span class="muted">updated {formatClock(updatedAt)}</span>}
    </span>
  );
}

import { tracePath } from "../../../../shared/ui-links.js";
import { formatDateTime } from "../../format/time.js";
import { Link } from "../../routing/link.js";
import type { ExemplarRow } from "./exemplar-rows.js";

/**
 * The answer's exemplars, each opening its trace: the chart marks them on their lines, and this
 * list names them (group, time, trace) for reading and for the keyboard.
 */
export function ExemplarList({ rows }: { rows: ExemplarRow[] }) {
  return (
    <section class="metric-exemplars" aria-label="Exemplars">
      <h3>
        Exemplars <span class="muted">(newest first per group)</span>
      </h3>
      {rows.length === 0 ? (
        <p class="muted">No exemplars in the window.</p>
      ) : (
        <table class="data exemplar-table">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Time</th>
              <th scope="col">Trace</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.traceId}>
                <td>
                  <span class="swatch" style={{ background: row.colour }} aria-hidden="true" /> {row.groupLabel}
                </td>
                <td class="mono">{formatDateTime(row.timeMs)}</td>
                <td>
                  <Link
                    class="mono trace-id"
                    href={tracePath(row.traceId)}
                    aria-label={`Trace ${row.traceId} (${row.groupLabel}${row.rank === 1 ? ", newest" : ""})`}
                  >
                    {row.traceId}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

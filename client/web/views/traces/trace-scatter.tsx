/**
 * Duration over start time, one point per listed trace, as on Jaeger's search page. A small
 * SVG rather than uPlot: a page holds at most 100 points, and each point is a real link (focus
 * with Tab, open with Enter or a click, named for a screen reader), which a canvas cannot be.
 * Errors are drawn as diamonds in the error colour, so they differ in shape, not colour only.
 */
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { TraceSummary } from "../../../../shared/api-records.js";
import { tracePath } from "../../../../shared/ui-links.js";
import { serviceColour } from "../../format/service-colour.js";
import { formatClock, formatDuration, isoToMs } from "../../format/time.js";
import { isPlainClick } from "../../routing/plain-click.js";
import { navigate } from "../../routing/router.js";
import { scatterScales, timeLabel } from "./scatter-scales.js";

const HEIGHT = 180;
const MARGIN = { left: 56, right: 12, top: 18, bottom: 24 };

function pointLabel(trace: TraceSummary, startMs: number): string {
  const root = `${trace.rootServiceName ?? "unknown service"} ${trace.rootOperation ?? "(no root span)"}`;
  const errors = trace.status === "error" ? `, failed, ${trace.errorCount} errors` : "";
  return `${root}, ${formatDuration(trace.durationMs)}, started ${formatClock(startMs)}${errors}`;
}

/** The container's width, following resizes, so the plot fills it at any window size. */
function useWidth(): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.max(element.clientWidth, 200)));
    observer.observe(element);
    setWidth(Math.max(element.clientWidth, 200));
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

export function TraceScatter({ traces }: { traces: readonly TraceSummary[] }) {
  const [ref, width] = useWidth();
  const points = traces.map((trace) => ({ trace, startMs: isoToMs(trace.startTime), durationMs: trace.durationMs }));
  const area = { left: MARGIN.left, right: width - MARGIN.right, top: MARGIN.top, bottom: HEIGHT - MARGIN.bottom };
  const scales = scatterScales(points, area, { x: Math.max(2, Math.floor(width / 110)), y: 4 });
  return (
    <div class="trace-scatter" ref={ref}>
      <svg
        width={width}
        height={HEIGHT}
        aria-label={`Duration over start time of the ${traces.length} traces listed${scales.log ? " (log scale)" : ""}`}
      >
        {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: an SVG group is not focusable; the axis labels repeat what each point's own label says */}
        <g class="axis" aria-hidden="true">
          {scales.yTicks.map((tick) => (
            <g key={`y${tick.value}`}>
              <line class="grid" x1={area.left} x2={area.right} y1={tick.at} y2={tick.at} />
              <text x={area.left - 6} y={tick.at} text-anchor="end" dominant-baseline="middle">
                {tick.value === 0 ? "0" : formatDuration(tick.value)}
              </text>
            </g>
          ))}
          {scales.xTicks.map((tick) => (
            <text key={`x${tick.value}`} x={tick.at} y={HEIGHT - 6} text-anchor="middle">
              {timeLabel(tick.value)}
            </text>
          ))}
          <line class="frame" x1={area.left} x2={area.right} y1={area.bottom} y2={area.bottom} />
          {scales.log && (
            <text class="scale-note" x={area.left} y={3} dominant-baseline="hanging">
              duration, log scale
            </text>
          )}
        </g>
        {points.map(({ trace, startMs, durationMs }) => {
          const x = scales.x(startMs);
          const y = scales.y(durationMs);
          const href = tracePath(trace.traceId);
          const failed = trace.status === "error";
          return (
            <a
              key={trace.traceId}
              href={href}
              class={`point${failed ? " failed" : ""}`}
              aria-label={pointLabel(trace, startMs)}
              data-trace-id={trace.traceId}
              onClick={(event: MouseEvent) => {
                if (!isPlainClick(event)) return;
                event.preventDefault();
                navigate(href);
              }}
            >
              <title>{pointLabel(trace, startMs)}</title>
              {failed ? (
                <path d={`M${x} ${y - 6}L${x + 6} ${y}L${x} ${y + 6}L${x - 6} ${y}Z`} />
              ) : (
                <circle cx={x} cy={y} r={4.5} style={{ fill: serviceColour(trace.rootServiceName ?? "") }} />
              )}
            </a>
          );
        })}
      </svg>
    </div>
  );
}

/**
 * The waterfall: the time axis and a tree of rows (role="tree"), of which only those in the
 * scroll viewport and a margin are rendered (virtual-window.ts), so 100,000 spans scroll as
 * lightly as 100. The tree keeps the focus and names the selected row with
 * aria-activedescendant; keys are tree-keys.ts's.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Segment } from "./critical-segments.js";
import { timeTicks } from "./time-ticks.js";
import type { TraceLogLine } from "./trace-log-lines.js";
import type { WaterfallSpan } from "./trace-spans.js";
import { treeKeyAction } from "./tree-keys.js";
import { scrollToReveal, virtualWindow } from "./virtual-window.js";
import { rowDomId, WaterfallRowView } from "./waterfall-row.js";
import type { WaterfallRow } from "./waterfall-rows.js";
import "./waterfall.css";

/** Every row's height, px (the CSS's .wf-row height): the virtual window's arithmetic needs one. */
export const ROW_HEIGHT = 24;

export interface WaterfallProps {
  spans: readonly WaterfallSpan[];
  rows: readonly WaterfallRow[];
  extentMs: number;
  critical: Map<number, Segment[]>;
  logsBySpan: Map<string, TraceLogLine[]>;
  selectedKey: string | undefined;
  onSelect: (key: string) => void;
  onToggle: (row: WaterfallRow) => void;
  /** Called once the first rows are on screen. */
  onPainted?: () => void;
}

export function Waterfall(props: WaterfallProps) {
  const { spans, rows, extentMs, selectedKey, onSelect, onToggle } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 600 });
  const revealed = useRef<string | undefined>(undefined);
  const selectedIndex = selectedKey === undefined ? -1 : rows.findIndex((row) => row.key === selectedKey);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const measure = () => setView({ top: element.scrollTop, height: element.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // Scroll a newly selected row into view once (not again when later pages re-render the rows).
  useEffect(() => {
    const element = scroller.current;
    if (!element || selectedIndex < 0 || revealed.current === selectedKey) return;
    revealed.current = selectedKey;
    const top = scrollToReveal(selectedIndex, element.scrollTop, element.clientHeight, ROW_HEIGHT);
    if (top !== null) element.scrollTop = top;
  }, [selectedKey, selectedIndex]);

  const painted = useRef(false);
  useEffect(() => {
    if (painted.current || rows.length === 0 || !props.onPainted) return;
    painted.current = true;
    requestAnimationFrame(() => props.onPainted?.());
  }, [rows.length, props.onPainted]);

  const slice = virtualWindow(view.top, view.height, ROW_HEIGHT, rows.length);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const pageRows = Math.max(1, Math.floor(view.height / ROW_HEIGHT) - 1);
    const action = treeKeyAction(rows, selectedIndex, event.key, pageRows);
    if (!action) return;
    event.preventDefault();
    if ("select" in action) onSelect(action.select);
    else {
      const row = rows.find((candidate) => candidate.key === action.toggle);
      if (row) onToggle(row);
    }
  };

  return (
    <div class="waterfall">
      <div class="wf-axis" aria-hidden="true">
        <div class="wf-axis-name">Span</div>
        <div class="wf-axis-time">
          {timeTicks(extentMs).map((tick) => (
            <span key={tick.offsetMs} class="wf-tick" style={{ left: `${tick.percent}%` }}>
              {tick.label}
            </span>
          ))}
        </div>
      </div>
      <div
        ref={scroller}
        class="wf-scroll"
        role="tree"
        tabIndex={0}
        aria-label={`Spans of the trace, ${rows.length} rows`}
        aria-activedescendant={selectedIndex >= 0 && selectedKey ? rowDomId(selectedKey) : undefined}
        onKeyDown={onKeyDown}
        onScroll={(event) => {
          const element = event.currentTarget as HTMLDivElement;
          setView({ top: element.scrollTop, height: element.clientHeight });
        }}
      >
        <div class="wf-canvas" role="none" style={{ height: `${slice.height}px` }}>
          <div class="wf-window" role="none" style={{ transform: `translateY(${slice.top}px)` }}>
            {rows.slice(slice.first, slice.end).map((row) => {
              const span = spans[row.index] as WaterfallSpan;
              return (
                <WaterfallRowView
                  key={row.key}
                  row={row}
                  span={span}
                  extentMs={extentMs}
                  selected={row.key === selectedKey}
                  critical={row.group ? undefined : props.critical.get(row.index)}
                  logs={row.group ? undefined : props.logsBySpan.get(span.spanId)}
                  onSelect={onSelect}
                  onToggle={onToggle}
                />
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}

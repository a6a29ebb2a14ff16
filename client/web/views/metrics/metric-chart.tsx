/**
 * The chart of a series answer, drawn by uPlot: one line per group in its colour, gaps where a
 * bucket has no value (and at the open bucket of values that add up: chartValues), time on x in
 * the browser's zone, the value unit on y. The plot is made
 * again when its series or the colour scheme change, and only given new data on a live
 * refresh, so a person's legend toggles survive the refresh. Exemplars are marks on the line
 * of their group in the bucket that holds them: links (so a keyboard reaches them and a click
 * opens the trace), placed over uPlot's overlay after every draw.
 */
import "uplot/dist/uPlot.min.css";
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import { tracePath } from "../../../../shared/ui-links.js";
import { formatDateTime } from "../../format/time.js";
import { isPlainClick } from "../../routing/plain-click.js";
import { navigate } from "../../routing/router.js";
import { valueAxisLabel, valueAxisSize } from "./axis-size.js";
import type { ExemplarRow } from "./exemplar-rows.js";
import { chartValues, formatTicks, formatValue, isolatedIndices, type PlotData } from "./series-data.js";
import { timeTickLabels } from "./time-ticks.js";

const HEIGHT = 280;

function cssVariable(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

function useDarkScheme(): boolean {
  const [dark, setDark] = useState(() => matchMedia("(prefers-color-scheme: dark)").matches);
  useEffect(() => {
    const media = matchMedia("(prefers-color-scheme: dark)");
    const update = () => setDark(media.matches);
    media.addEventListener("change", update);
    return () => media.removeEventListener("change", update);
  }, []);
  return dark;
}

/**
 * Puts a link per placed exemplar on the plot's overlay. Marks are kept from one draw to the
 * next (found by their trace) and only moved, so a live refresh does not take the keyboard focus
 * away from the mark a person is on; a mark whose exemplar left the answer is removed.
 */
function placeExemplars(plot: uPlot, rows: readonly ExemplarRow[]): void {
  const existing = new Map<string, HTMLAnchorElement>();
  for (const mark of plot.over.querySelectorAll<HTMLAnchorElement>("a.exemplar-mark")) {
    existing.set(mark.dataset.trace ?? "", mark);
  }
  const xs = plot.data[0] as readonly number[];
  for (const row of rows) {
    const x = xs[row.bucket];
    if (row.bucket < 0 || x === undefined || plot.series[row.group + 1]?.show === false) continue;
    const mark = existing.get(row.traceId) ?? newMark(plot, row.traceId);
    existing.delete(row.traceId);
    const label = `Exemplar trace ${row.traceId}, ${row.groupLabel}, ${formatDateTime(row.timeMs)}`;
    mark.setAttribute("aria-label", label);
    mark.title = label;
    mark.style.left = `${plot.valToPos(x, "x")}px`;
    // A bucket with no value yet (the open one): the mark sits on the time axis.
    mark.style.top = `${row.value === null ? plot.over.clientHeight - 6 : plot.valToPos(row.value, "y")}px`;
    mark.style.borderColor = row.colour;
  }
  for (const gone of existing.values()) gone.remove();
}

function newMark(plot: uPlot, traceId: string): HTMLAnchorElement {
  const href = tracePath(traceId);
  const mark = document.createElement("a");
  mark.className = "exemplar-mark";
  mark.dataset.trace = traceId;
  mark.href = href;
  mark.addEventListener("click", (event) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    navigate(href);
  });
  plot.over.append(mark);
  return mark;
}

function optionsOf(
  data: PlotData,
  valueUnit: string,
  width: number,
  exemplars: { current: readonly ExemplarRow[] },
): uPlot.Options {
  const muted = cssVariable("--fg-muted");
  const grid = cssVariable("--border");
  const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  return {
    width,
    height: HEIGHT,
    cursor: { drag: { x: true, y: false } },
    hooks: { draw: [(plot: uPlot) => placeExemplars(plot, exemplars.current)] },
    legend: { live: true },
    scales: { x: { time: true } },
    series: [
      {
        label: "Bucket",
        value: (_: uPlot, value: number | null) => (value === null ? "–" : formatDateTime(value * 1000)),
      },
      ...data.series.map((series) => ({
        label: series.label,
        stroke: series.colour,
        width: 1.5,
        spanGaps: false,
        // uPlot shows points when they are sparse; otherwise only the lone values a line cannot draw.
        points: {
          size: 5,
          filter: (plot: uPlot, index: number, show: boolean) =>
            show ? null : isolatedIndices((plot.data[index] ?? []) as (number | null)[]),
        },
        value: (_: uPlot, value: number | null) => (value === null ? "–" : `${formatValue(value)} ${valueUnit}`),
      })),
    ],
    axes: [
      {
        ...axis,
        size: 44,
        values: (_: uPlot, ticks: number[], _axis: number, _space: number, increment: number) =>
          timeTickLabels(ticks, increment),
      },
      {
        ...axis,
        label: valueAxisLabel(valueUnit),
        labelSize: 18,
        size: valueAxisSize,
        values: (_: uPlot, ticks: number[]) => formatTicks(ticks),
      },
    ],
  };
}

export function MetricChart({
  data,
  valueUnit,
  label,
  exemplars,
}: {
  data: PlotData;
  valueUnit: string;
  label: string;
  exemplars: readonly ExemplarRow[];
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const marks = useRef(exemplars);
  marks.current = exemplars;
  const dark = useDarkScheme();
  const shape = JSON.stringify([data.series.map((s) => [s.label, s.colour]), valueUnit, dark]);

  // Rebuilt only when the shape changes; new data alone goes through setData below.
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const made = new uPlot(
      optionsOf(data, valueUnit, element.clientWidth || 600, marks),
      [data.xs, ...chartValues(data)],
      element,
    );
    plot.current = made;
    made.ctx.canvas.setAttribute("role", "img");
    const resize = new ResizeObserver(() => made.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      made.destroy();
      plot.current = null;
    };
  }, [shape]);

  useEffect(() => {
    plot.current?.setData([data.xs, ...chartValues(data)]);
  }, [data]);

  useEffect(() => {
    if (plot.current) placeExemplars(plot.current, exemplars);
  }, [exemplars]);

  useEffect(() => {
    plot.current?.ctx.canvas.setAttribute("aria-label", label);
  }, [label, shape]);

  return <div class="metric-chart" ref={box} />;
}

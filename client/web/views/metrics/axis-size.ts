/**
 * The width of the chart's value axis: as wide as its longest tick label. A gauge near 2.47
 * million needs labels of seven digits ("2.46915M"), which a fixed width cut at the chart's left
 * edge. Pure but for the canvas it measures with.
 */
import type uPlot from "uplot";

/** The value axis's least width, CSS px: room for "2.5M" and its tick. */
export const VALUE_AXIS_MIN = 56;

/** uPlot calls this again while the ticks settle; past the second cycle it keeps the size it has. */
export function valueAxisSize(
  plot: Pick<uPlot, "axes" | "ctx">,
  values: string[] | null,
  axisIndex: number,
  cycle: number,
): number {
  const axis = plot.axes[axisIndex] as { _size?: number; font?: [string, ...unknown[]] } | undefined;
  if (cycle > 1 && axis?._size !== undefined) return axis._size;
  const longest = (values ?? []).reduce((a, b) => (b.length > a.length ? b : a), "");
  if (longest === "" || axis?.font === undefined) return VALUE_AXIS_MIN;
  plot.ctx.font = axis.font[0];
  // The canvas measures device pixels; the axis size is in CSS pixels. Ticks, gap and a margin: 18.
  const text = plot.ctx.measureText(longest).width / (globalThis.devicePixelRatio || 1);
  return Math.max(VALUE_AXIS_MIN, Math.ceil(text + 18));
}

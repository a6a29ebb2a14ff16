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

/**
 * The value axis' label: the unit, cut with an ellipsis where it is longer than the plot is high
 * (a unit is any text a program sends), as uPlot would otherwise draw it past the chart's top
 * and bottom. The header and the About pane show it whole. uPlot calls it at each draw with the
 * label's font set, so it measures in the canvas' own pixels.
 */
export function valueAxisLabel(unit: string): (plot: Pick<uPlot, "bbox" | "ctx">) => string {
  return (plot) => {
    const room = plot.bbox.height;
    const width = (text: string) => plot.ctx.measureText(text).width;
    if (width(unit) <= room) return unit;
    const chars = [...unit];
    for (let keep = chars.length - 1; keep > 0; keep--) {
      const cut = `${chars.slice(0, keep).join("")}…`;
      if (width(cut) <= room) return cut;
    }
    return "";
  };
}

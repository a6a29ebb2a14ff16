/**
 * Time slots of the rollup tables. Every span and log record is counted in the minute and in
 * the hour its start (or timestamp) falls in, so a long window is answered from hours, its
 * ragged ends from minutes, and the partial minutes at its very edges from the raw rows.
 */

export const MINUTE_NS = 60_000_000_000n;
export const HOUR_NS = 3_600_000_000_000n;
export const ROLLUP_WIDTHS = [MINUTE_NS, HOUR_NS] as const;

/** Slots of one width whose start lies in [from, to). */
export interface SlotRange {
  width: bigint;
  from: bigint;
  to: bigint;
}

/** A window split into raw time ranges [from, to) and rollup slot ranges; together they cover it once. */
export interface WindowPlan {
  raw: { from: bigint; to: bigint }[];
  slots: SlotRange[];
}

export function slotOf(ns: bigint, width: bigint): bigint {
  return ns - (((ns % width) + width) % width);
}

function ceilTo(ns: bigint, width: bigint): bigint {
  const floor = slotOf(ns, width);
  return floor === ns ? ns : floor + width;
}

/**
 * Splits the time range [lo, hi) for reading. Slots are used only when they start at or after
 * `slotsFrom`: older slots may count rows that retention has since deleted, so the rows there
 * are read one by one.
 */
export function planWindow(lo: bigint, hi: bigint, slotsFrom: bigint): WindowPlan {
  if (hi <= lo) return { raw: [], slots: [] };
  const a = ceilTo(lo > slotsFrom ? lo : slotsFrom, MINUTE_NS);
  const b = slotOf(hi, MINUTE_NS);
  if (a >= b) return { raw: [{ from: lo, to: hi }], slots: [] };
  const raw = [
    { from: lo, to: a },
    { from: b, to: hi },
  ].filter((range) => range.to > range.from);
  const hoursFrom = ceilTo(a, HOUR_NS);
  const hoursTo = slotOf(b, HOUR_NS);
  const slots: SlotRange[] =
    hoursFrom < hoursTo
      ? [
          { width: MINUTE_NS, from: a, to: hoursFrom },
          { width: HOUR_NS, from: hoursFrom, to: hoursTo },
          { width: MINUTE_NS, from: hoursTo, to: b },
        ]
      : [{ width: MINUTE_NS, from: a, to: b }];
  return { raw, slots: slots.filter((range) => range.to > range.from) };
}

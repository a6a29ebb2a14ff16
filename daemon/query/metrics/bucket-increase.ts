/**
 * Per-point bucket increases of histograms read from raw points (the rollups hold them
 * already), and the quantile of a group's merged buckets or of a summary's quantiles. Pure;
 * the inputs are the stored JSON texts (metric_points.detail, metric_rollups.buckets).
 */

import { bucketIncrease as sideIncrease } from "../../store/exp-buckets.js";
import { observationsIn } from "../../store/metric-rollup.js";
import {
  addExplicit,
  addExponential,
  type ExplicitBuckets,
  type ExponentialBuckets,
  type ExponentialSide,
  explicitQuantile,
  exponentialQuantile,
} from "./histogram-buckets.js";

export type HistogramDetail = ExplicitBuckets | ExponentialBuckets;

export function isExponential(detail: HistogramDetail): detail is ExponentialBuckets {
  return "scale" in detail;
}

/**
 * Whether two points' buckets are comparable: the same explicit bounds, or both exponential
 * (a new scale is not a restart: SDKs lower it as values widen the range, counts carrying on,
 * and bucketIncrease() compares the points at the lower scale), as the rollups rule.
 */
export function sameShape(a: HistogramDetail, b: HistogramDetail): boolean {
  if (isExponential(a) || isExponential(b)) return isExponential(a) && isExponential(b);
  return a.bounds.length === b.bounds.length && a.bounds.every((x, i) => x === b.bounds[i]);
}

/**
 * The buckets a point adds: `whole` its own counts (a delta point, a reset, a first point with
 * a start time), `zero` none (a first point without one), `diff` its counts less the previous
 * point's (sameShape() is part of the reset test), never below zero per bucket, exponential
 * ones at the lower of the two scales: the rollups' rules (metric-rollup.ts), so the answer is
 * the same from either.
 */
export function bucketIncrease(
  detail: HistogramDetail,
  previous: HistogramDetail | null,
  mode: "whole" | "zero" | "diff",
): HistogramDetail {
  if (isExponential(detail)) {
    const side = (s: ExponentialSide) => ({ offset: s.offset, bucketCounts: s.bucketCounts.map(() => 0) });
    if (mode === "zero") {
      return { scale: detail.scale, zeroCount: 0, positive: side(detail.positive), negative: side(detail.negative) };
    }
    if (mode === "whole" || previous === null || !isExponential(previous)) {
      const { scale, zeroCount, positive, negative } = detail;
      return { scale, zeroCount, positive, negative };
    }
    return {
      scale: Math.min(detail.scale, previous.scale),
      zeroCount: Math.max(0, detail.zeroCount - previous.zeroCount),
      positive: sideIncrease(detail.positive, detail.scale, previous.positive, previous.scale),
      negative: sideIncrease(detail.negative, detail.scale, previous.negative, previous.scale),
    };
  }
  if (mode === "zero") return { bounds: detail.bounds, counts: detail.counts.map(() => 0) };
  if (mode === "whole" || previous === null || isExponential(previous)) return detail;
  return { bounds: detail.bounds, counts: detail.counts.map((c, i) => Math.max(0, c - (previous.counts[i] ?? 0))) };
}

/**
 * Merges bucket increases of one kind (explicit or exponential) across series and slots, with
 * the least min and the greatest max the points recorded.
 */
export class BucketMerge {
  private explicit: ExplicitBuckets | null = null;
  private exponential: ExponentialBuckets | null = null;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  /**
   * Some buckets added came without a min or a max: their observations may lie anywhere in them
   * (buckets that count none, an empty interval's, leave the range as it is).
   */
  private unbounded = false;

  /**
   * A point's (or a rollup row's) buckets, with its recorded min and max (null: not sent). A
   * cumulative point's hold since its start, so they bound the observations its increase counts
   * as well. A rollup row folds its points' (metric-rollup.ts): a series sends both or neither.
   */
  add(detail: HistogramDetail, min: number | null = null, max: number | null = null): void {
    if (isExponential(detail)) this.exponential = addExponential(this.exponential, detail);
    else this.explicit = addExplicit(this.explicit, detail);
    if ((min === null || max === null) && observationsIn(detail) > 0) this.unbounded = true;
    if (min !== null && min < this.min) this.min = min;
    if (max !== null && max > this.max) this.max = max;
  }

  /**
   * The q-quantile, interpolated within the part of its bucket the recorded min and max leave
   * where every bucket added came with them (histogram-buckets.ts, ObservedRange): over a whole
   * bucket (0, 5] whose observations all lie from 0.001 to 1, and held at the max afterwards,
   * p50, p95 and p99 all read the max. One point without them (an SDK with min and max off)
   * may have observations anywhere in its buckets, so then the buckets' own bounds stand.
   */
  quantile(q: number): number | null {
    const range = this.unbounded || this.min > this.max ? null : { min: this.min, max: this.max };
    const value = this.exponential
      ? exponentialQuantile(q, this.exponential, range)
      : this.explicit
        ? explicitQuantile(q, this.explicit, range)
        : null;
    // Already within it, but for buckets whose counts disagree with the range.
    if (value === null || range === null) return value;
    return Math.min(range.max, Math.max(range.min, value));
  }
}

/**
 * A group's q-quantile from its series' summaries: each series' own reported quantile q
 * (the newest point's), averaged over the series weighted by their observation counts. Not a
 * merged quantile (a summary's quantiles cannot be merged); a series that did not report q has none.
 */
export class SummaryQuantile {
  private weighted = 0;
  private weights = 0;
  private plain = 0;
  private n = 0;

  add(quantiles: [number, number | null][], weight: number | null, q: number): void {
    const found = quantiles.find(([at]) => Math.abs(at - q) < 1e-9);
    // A NaN quantile (a Prometheus summary without recent observations) is stored as JSON
    // null: that series reported none.
    if (!found || found[1] === null || !Number.isFinite(found[1])) return;
    this.plain += found[1];
    this.n += 1;
    if (weight !== null && weight > 0) {
      this.weighted += found[1] * weight;
      this.weights += weight;
    }
  }

  value(): number | null {
    if (this.weights > 0) return this.weighted / this.weights;
    return this.n > 0 ? this.plain / this.n : null;
  }
}

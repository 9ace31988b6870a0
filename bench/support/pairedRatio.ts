// The ratio of two servers' rates measured in alternating pairs of loads (bench:pair), with
// its confidence interval: on a machine whose speed drifts by up to half over tens of
// seconds, two loads run back to back see nearly the same machine, so the ratio within each
// pair is far steadier than either rate, and many pairs decide a difference of a few percent
// that interleaved rounds cannot.

/** Φ⁻¹(0.975): the normal quantile of a two-sided 95% interval. */
const Z_975 = 1.959963984540054;

/**
 * Student's t quantile for a two-sided 95% interval with `df` degrees of freedom, by the
 * Cornish–Fisher expansion around the normal quantile to its fourth term (within 0.2% of
 * the tables from 3 degrees of freedom on: 3.182 at 3, 2.228 at 10, 2.042 at 30).
 */
export const tQuantile975 = (df: number): number => {
  if (!Number.isFinite(df) || df < 3) throw new Error(`t quantile needs at least 3 degrees of freedom, not ${df}`);
  const z = Z_975;
  const [z3, z5, z7, z9] = [z ** 3, z ** 5, z ** 7, z ** 9];
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) +
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df ** 4)
  );
};

export interface PairedRatio {
  readonly pairs: number;
  /** The geometric mean of the pairs' ratios (a over b). */
  readonly ratio: number;
  /** Its 95% confidence interval (a t interval on the logarithms of the ratios). */
  readonly low: number;
  readonly high: number;
  /** The median of the pairs' ratios: unmoved by one pair that a hiccup of the machine spoiled. */
  readonly median: number;
  /** Pairs in which a was ahead. */
  readonly aAhead: number;
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The ratio a/b of pairs of rates (each pair measured back to back); at least four pairs. */
export const pairedRatio = (pairs: readonly { readonly a: number; readonly b: number }[]): PairedRatio => {
  if (pairs.length < 4) throw new Error(`a paired ratio needs at least 4 pairs, not ${pairs.length}`);
  if (pairs.some(({ a, b }) => !(a > 0) || !(b > 0))) throw new Error('every rate of a pair must be above 0');
  const logs = pairs.map(({ a, b }) => Math.log(a / b));
  const n = logs.length;
  const mean = logs.reduce((sum, x) => sum + x, 0) / n;
  const sd = Math.sqrt(logs.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1));
  const half = (tQuantile975(n - 1) * sd) / Math.sqrt(n);
  return {
    pairs: n,
    ratio: Math.exp(mean),
    low: Math.exp(mean - half),
    high: Math.exp(mean + half),
    median: Math.exp(median(logs)),
    aAhead: pairs.filter(({ a, b }) => a > b).length,
  };
};

/**
 * Which of the two runs first in pair `index` (from 0): a, b, then b, a, and so on (A B B A
 * A B B A…), so that neither is always the one loaded after the other.
 */
export const aFirst = (index: number): boolean => index % 2 === 0;

/** What a receiver got for one subscription, against what it should have got. */
export interface ArrivalCheck {
  /** Expected events that never arrived. */
  readonly lost: readonly string[];
  /** Events that arrived after a later one had (an order broken), with where in the arrivals. */
  readonly outOfOrder: readonly { readonly event: string; readonly at: number }[];
  /** Arrivals of events that were never expected. */
  readonly unexpected: readonly string[];
  /** Arrivals that repeat the one just before (a delivery sent again after a crash or a timeout: allowed). */
  readonly repeated: number;
}

/**
 * Checks the arrivals of one subscription (event ids, in the order received)
 * against the events expected, in log order: each must arrive, in that order. A
 * delivery repeated right after itself is what at-least-once delivery allows (an
 * attempt whose outcome was not recorded is made again); an earlier event arriving
 * after a later one is an order broken.
 */
export const checkArrivals = (expected: readonly string[], arrivals: readonly string[]): ArrivalCheck => {
  const rank = new Map(expected.map((event, i) => [event, i]));
  const outOfOrder: { event: string; at: number }[] = [];
  const unexpected: string[] = [];
  const seen = new Set<string>();
  let repeated = 0;
  let highest = -1;
  arrivals.forEach((event, at) => {
    const r = rank.get(event);
    if (r === undefined) {
      unexpected.push(event);
      return;
    }
    if (at > 0 && arrivals[at - 1] === event) {
      repeated += 1;
      return;
    }
    if (r < highest) outOfOrder.push({ event, at });
    highest = Math.max(highest, r);
    seen.add(event);
  });
  return { lost: expected.filter((event) => !seen.has(event)), outOfOrder, unexpected, repeated };
};

import { expect } from 'chai';
import { aFirst, pairedRatio, tQuantile975 } from '../../../bench/support/pairedRatio.js';

describe('bench:pair: the ratio of two rates measured in alternating pairs', () => {
  it('gives Student t quantiles of a two-sided 95% interval within 0.2% of the tables', () => {
    const tables: [number, number][] = [
      [3, 3.1824],
      [4, 2.7764],
      [5, 2.5706],
      [10, 2.2281],
      [19, 2.093],
      [30, 2.0423],
      [100, 1.984],
    ];
    for (const [df, t] of tables) expect(Math.abs(tQuantile975(df) - t) / t, `df ${df}`).to.be.below(0.002);
  });

  it('refuses fewer than 3 degrees of freedom', () => {
    expect(() => tQuantile975(2)).to.throw(/at least 3/);
  });

  it('is the geometric mean of the ratios, inside its interval, with the pairs a was ahead in', () => {
    const result = pairedRatio([
      { a: 110, b: 100 },
      { a: 2_000, b: 2_000 },
      { a: 900, b: 1_000 },
      { a: 3_300, b: 3_000 },
    ]);
    expect(result.ratio).to.be.closeTo((1.1 * 1 * 0.9 * 1.1) ** 0.25, 1e-12);
    expect(result.low).to.be.below(result.ratio);
    expect(result.high).to.be.above(result.ratio);
    expect(result.median).to.be.closeTo(Math.sqrt(1.1 * 1), 1e-12);
    expect(result.aAhead).to.equal(2);
    expect(result.pairs).to.equal(4);
  });

  it('computes the interval from the spread of the ratios, not of the rates', () => {
    // The machine's speed doubles between pairs; a is 5% ahead in every pair.
    const steady = pairedRatio([1_000, 2_000, 1_500, 3_000, 1_200].map((b) => ({ a: b * 1.05, b })));
    expect(steady.ratio).to.be.closeTo(1.05, 1e-12);
    expect(steady.low).to.be.closeTo(1.05, 1e-9);
    expect(steady.high).to.be.closeTo(1.05, 1e-9);

    // Log ratios ±0.1 around 0 over 6 pairs: sd 0.1095, t(5) 2.571, half-width 0.115.
    const spread = pairedRatio([0.1, -0.1, 0.1, -0.1, 0.1, -0.1].map((x) => ({ a: 1_000 * Math.exp(x), b: 1_000 })));
    expect(spread.ratio).to.be.closeTo(1, 1e-12);
    expect(Math.log(spread.high)).to.be.closeTo(0.115, 0.001);
    expect(Math.log(spread.low)).to.be.closeTo(-0.115, 0.001);
  });

  it('gives the median ratio unmoved by one spoiled pair, where the mean moves', () => {
    const pairs = [1.02, 0.98, 1.01, 0.99, 1.0].map((ratio) => ({ a: 1_000 * ratio, b: 1_000 }));
    const spoiled = pairedRatio([...pairs, { a: 1_700, b: 1_000 }]);
    expect(spoiled.median).to.be.closeTo(Math.sqrt(1.0 * 1.01), 1e-12);
    expect(spoiled.ratio).to.be.above(1.08);
  });

  it('refuses too few pairs and rates that are not above 0', () => {
    expect(() => pairedRatio([{ a: 1, b: 1 }, { a: 1, b: 1 }, { a: 1, b: 1 }])).to.throw(/at least 4 pairs/);
    expect(() => pairedRatio([{ a: 1, b: 1 }, { a: 1, b: 1 }, { a: 1, b: 1 }, { a: 0, b: 1 }])).to.throw(/above 0/);
  });

  it('alternates which runs first: A B, B A, A B, B A', () => {
    expect([0, 1, 2, 3].map(aFirst)).to.deep.equal([true, false, true, false]);
  });
});

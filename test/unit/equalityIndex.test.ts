import { expect } from 'chai';
import { EqualityIndex, UNINDEXED, indexedValue, type Scalar } from '../../src/adapters/memory/EqualityIndex.js';

const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

describe('EqualityIndex', () => {
  describe('given documents that are created, changed and deleted at random', () => {
    for (const seed of [3, 11, 99]) {
      it(`offers every match among its candidates, ascending and without repeats (seed ${seed})`, () => {
        const next = random(seed);
        const values: unknown[] = ['open', 'won', 'lost', null, undefined, 1, true, { nested: 1 }];
        const pick = () => values[Math.floor(next() * values.length)];
        const docs: { value: unknown; deleted: boolean }[] = [];
        const index = new EqualityIndex(
          (i) => (docs[i]!.deleted ? UNINDEXED : indexedValue(docs[i]!.value)),
          () => docs.length,
        );
        for (let step = 0; step < 4000; step++) {
          const roll = next();
          if (roll < 0.5 || docs.length === 0) docs.push({ value: pick(), deleted: false });
          else if (roll < 0.75) {
            const i = Math.floor(next() * docs.length);
            docs[i]!.value = pick();
            index.invalidate(i);
          } else if (roll < 0.85) {
            const i = Math.floor(next() * docs.length);
            docs[i]!.deleted = true;
            index.invalidate(i);
          } else {
            const wanted = (['open', 'won', null, 1, true] as Scalar[])[Math.floor(next() * 5)]!;
            const candidates = index.candidates(wanted);
            const matches = docs.flatMap((d, i) => (!d.deleted && (wanted === null ? d.value == null : d.value === wanted) ? [i] : []));
            expect(candidates.filter((i) => matches.includes(i)), `step ${step}`).to.deep.equal(matches);
            expect([...candidates].sort((a, b) => a - b)).to.deep.equal(candidates);
            expect(new Set(candidates).size).to.equal(candidates.length);
          }
        }
      });
    }
  });
});

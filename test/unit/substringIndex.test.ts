import { expect } from 'chai';
import { SubstringIndex } from '../../src/adapters/memory/SubstringIndex.js';

/** A small deterministic generator, so a failure can be replayed. */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

describe('SubstringIndex', () => {
  describe('given documents that are created, changed and deleted at random', () => {
    for (const seed of [1, 7, 42]) {
      it(`answers every search exactly as a full scan would (seed ${seed})`, () => {
        const next = random(seed);
        const words = ['müller', 'smith', 'ada', 'lovelace', '+4915', 'x', '(vip)', '.*(', 'ab', 'abc', 'bca'];
        const pick = () => words[Math.floor(next() * words.length)]!;
        const docs: (string | null)[] = [];
        const index = new SubstringIndex((i) => docs[i] ?? null, () => docs.length);
        const scan = (needle: string, ascending: boolean) => {
          const hits = docs.flatMap((text, i) => (text !== null && text.includes(needle) ? [i] : []));
          return ascending ? hits : hits.reverse();
        };
        for (let step = 0; step < 3000; step++) {
          const roll = next();
          if (roll < 0.5 || docs.length === 0) docs.push(`${pick()} ${pick()}${pick()}`);
          else if (roll < 0.75) {
            const i = Math.floor(next() * docs.length);
            if (docs[i] !== null) docs[i] = `${pick()}${pick()} ${pick()}`;
            index.invalidate(i);
          } else if (roll < 0.85) {
            const i = Math.floor(next() * docs.length);
            docs[i] = null;
            index.invalidate(i);
          } else {
            const needle = next() < 0.8 ? pick() : `${pick()}${pick()}`.slice(1, 5);
            const ascending = next() < 0.5;
            expect([...index.matches(needle, ascending)], `step ${step}: "${needle}"`).to.deep.equal(scan(needle, ascending));
          }
        }
      });
    }
  });

  it('rebuilds after many changes and still answers like a scan', () => {
    const docs: (string | null)[] = Array.from({ length: 1500 }, (_, i) => `doc ${i} old`);
    const index = new SubstringIndex((i) => docs[i] ?? null, () => docs.length);
    expect([...index.matches(' old', true)]).to.have.length(1500);
    for (let i = 0; i < 1200; i++) {
      docs[i] = i % 2 ? `doc ${i} new` : null;
      index.invalidate(i);
    }
    const scan = (needle: string) => docs.flatMap((text, i) => (text?.includes(needle) ? [i] : []));
    expect([...index.matches(' new', true)]).to.deep.equal(scan(' new'));
    expect([...index.matches(' old', true)]).to.deep.equal(scan(' old'));
    expect([...index.matches('doc 11', false)]).to.deep.equal(scan('doc 11').reverse());
  });

  it('finds nothing for a text whose trigram no document has, and short texts by scanning', () => {
    const docs = ['alpha', 'beta', 'gamma'];
    const index = new SubstringIndex((i) => docs[i] ?? null, () => docs.length);
    expect([...index.matches('zzz', true)]).to.deep.equal([]);
    expect([...index.matches('a', true)]).to.deep.equal([0, 1, 2]);
    expect([...index.matches('mm', false)]).to.deep.equal([2]);
    expect([...index.matches('lph', true)]).to.deep.equal([0]);
  });
});

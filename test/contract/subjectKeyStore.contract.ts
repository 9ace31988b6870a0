import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { SubjectKeyStore } from '../../src/application/ports/SubjectKeyStore.js';

export interface SubjectKeyStoreUnderTest {
  readonly store: SubjectKeyStore;
  /** Another store on the same storage (another process, or a restart); null for a store no other process can see. */
  readonly reopen: (() => Promise<SubjectKeyStore>) | null;
  readonly dispose: () => Promise<void>;
}

/** A subject of its own for each use: a shared server is fine. */
export const newSubject = (kind: 'contact' | 'user' = 'contact'): string => `${kind}:${randomUUID()}`;

/** A key text as the application keeps one: opaque, distinct every time. */
export const newKeyText = (): string => randomBytes(32).toString('hex');

const T0 = new Date('2026-03-01T10:00:00.123Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);

/** The entries of `map` for `subjects`, in their order: answers compared whatever else the storage holds. */
const entriesOf = (map: ReadonlyMap<string, string>, subjects: readonly string[]): [string, string | undefined][] =>
  subjects.map((subject) => [subject, map.get(subject)]);

/** `items` in a random order. */
const shuffled = <T>(items: readonly T[]): T[] =>
  items
    .map((item) => ({ item, order: Math.random() }))
    .sort((a, b) => a.order - b.order)
    .map(({ item }) => item);

/**
 * The SubjectKeyStore contract, run for every adapter. Subjects are unique per
 * test, so a shared server is fine.
 */
export const subjectKeyStoreContract = (
  name: string,
  make: () => Promise<SubjectKeyStoreUnderTest>,
  /** False for a store no other process can see (memory): the tests across stores are left out. */
  { shared = true }: { readonly shared?: boolean } = {},
): void => {
  describe(`SubjectKeyStore: ${name}`, function () {
    this.timeout(20_000);
    let made: SubjectKeyStoreUnderTest;
    beforeEach(async () => (made = await make()));
    afterEach(() => made.dispose());

    /** Runs `use` on another store on the same storage, closed after. */
    const withOther = async (use: (other: SubjectKeyStore) => Promise<void>): Promise<void> => {
      const other = await made.reopen!();
      try {
        await use(other);
      } finally {
        await other.close();
      }
    };

    it('answers no key for subjects it never kept, and nothing for no subjects', async () => {
      expect(await made.store.get([newSubject(), newSubject('user')])).to.have.property('size', 0);
      expect(await made.store.get([])).to.have.property('size', 0);
      expect(await made.store.putIfAbsent(new Map())).to.have.property('size', 0);
    });

    it('keeps the first candidate of a subject and answers it to every later call, whatever their candidate', async () => {
      const subject = newSubject();
      const [first, second] = [newKeyText(), newKeyText()];
      expect([...(await made.store.putIfAbsent(new Map([[subject, first]])))]).to.deep.equal([[subject, first]]);
      expect([...(await made.store.putIfAbsent(new Map([[subject, second]])))]).to.deep.equal([[subject, first]]);
      expect([...(await made.store.get([subject]))]).to.deep.equal([[subject, first]]);
    });

    it('keeps and reads many subjects in one call, new ones beside ones that have a key', async () => {
      const known = Array.from({ length: 20 }, () => newSubject());
      const fresh = Array.from({ length: 30 }, () => newSubject('user'));
      const knownKeys = new Map(known.map((subject) => [subject, newKeyText()]));
      await made.store.putIfAbsent(knownKeys);
      const candidates = new Map(shuffled([...known, ...fresh]).map((subject) => [subject, newKeyText()]));
      const answered = await made.store.putIfAbsent(candidates);
      const expected = new Map([...known.map((subject): [string, string] => [subject, knownKeys.get(subject)!]), ...fresh.map((subject): [string, string] => [subject, candidates.get(subject)!])]);
      expect(answered.size).to.equal(50);
      expect(entriesOf(answered, [...known, ...fresh])).to.deep.equal(entriesOf(expected, [...known, ...fresh]));
      const unknown = newSubject();
      const read = await made.store.get([...fresh, unknown, ...known]);
      expect(read.size).to.equal(50);
      expect(entriesOf(read, [...known, ...fresh, unknown])).to.deep.equal(entriesOf(expected, [...known, ...fresh, unknown]));
    });

    it('keeps any text as it was given', async () => {
      const texts = ['v1:"quoted",\\back\\slash', '$key.with.dots', 'ünï\u2028cødé 🔑', '{"a":[1,2]}', ' '];
      const subjects = texts.map(() => newSubject());
      const candidates = new Map(subjects.map((subject, i) => [subject, texts[i]!]));
      expect(entriesOf(await made.store.putIfAbsent(candidates), subjects)).to.deep.equal(entriesOf(candidates, subjects));
      expect(entriesOf(await made.store.get(subjects), subjects)).to.deep.equal(entriesOf(candidates, subjects));
    });

    it('answers one and the same key to 20 concurrent calls for one subject, each with its own candidate', async () => {
      const subject = newSubject();
      const candidates = Array.from({ length: 20 }, newKeyText);
      const answers = await Promise.all(candidates.map((candidate) => made.store.putIfAbsent(new Map([[subject, candidate]]))));
      const kept = answers[0]!.get(subject);
      expect(candidates).to.include(kept);
      for (const answer of answers) expect([...answer]).to.deep.equal([[subject, kept]]);
      expect([...(await made.store.get([subject]))]).to.deep.equal([[subject, kept]]);
    });

    it('answers the same keys to concurrent calls for many of the same subjects, each in its own order', async () => {
      // Enough subjects for calls that took them in their own order to wait for each other (a deadlock, on a server).
      for (let round = 0; round < 3; round++) {
        const subjects = Array.from({ length: 200 }, () => newSubject());
        const answers = await Promise.all(
          Array.from({ length: 10 }, () => made.store.putIfAbsent(new Map(shuffled(subjects).map((subject) => [subject, newKeyText()])))),
        );
        const kept = await made.store.get(subjects);
        expect(kept.size).to.equal(200);
        for (const answer of answers) expect(entriesOf(answer, subjects)).to.deep.equal(entriesOf(kept, subjects));
      }
    });

    it('forgets an erased key for good: never answered again, never made again', async () => {
      const [erased, other] = [newSubject(), newSubject()];
      const key = newKeyText();
      await made.store.putIfAbsent(new Map([[erased, key]]));
      await made.store.erase(erased, T0);
      expect(await made.store.get([erased])).to.have.property('size', 0);
      const otherKey = newKeyText();
      const answered = await made.store.putIfAbsent(
        new Map([
          [erased, newKeyText()],
          [other, otherKey],
        ]),
      );
      expect([...answered]).to.deep.equal([[other, otherKey]]);
      expect(await made.store.get([erased])).to.have.property('size', 0);
      expect([...(await made.store.get([erased, other]))]).to.deep.equal([[other, otherKey]]);
    });

    it('answers when a subject was first erased, and null for one never erased', async () => {
      const [erased, kept, unknown] = [newSubject(), newSubject(), newSubject('user')];
      await made.store.putIfAbsent(
        new Map([
          [erased, newKeyText()],
          [kept, newKeyText()],
        ]),
      );
      await made.store.erase(erased, T0);
      await made.store.erase(erased, at(60_000));
      expect((await made.store.erasedAt(erased))?.toISOString()).to.equal(T0.toISOString());
      expect(await made.store.erasedAt(kept)).to.equal(null);
      expect(await made.store.erasedAt(unknown)).to.equal(null);
    });

    it('lists every erased subject with its first erasure time, in the order of those times, and no subject that keeps its key', async () => {
      const [late, early, never, kept] = [newSubject(), newSubject('user'), newSubject(), newSubject()];
      await made.store.putIfAbsent(new Map([late, early, kept].map((subject) => [subject, newKeyText()])));
      await made.store.erase(late, at(2_000));
      await made.store.erase(early, at(1_000));
      await made.store.erase(never, at(3_000));
      await made.store.erase(late, at(9_000));
      // The storage may hold other tests' subjects (a shared server): only these are compared.
      const listed = (await made.store.erased()).filter(({ subject }) => [late, early, never, kept].includes(subject));
      expect(listed.map(({ subject, erasedAt }) => [subject, erasedAt.toISOString()])).to.deep.equal([
        [early, at(1_000).toISOString()],
        [late, at(2_000).toISOString()],
        [never, at(3_000).toISOString()],
      ]);
    });

    it('records a subject it never saw as erased, which then never gets a key', async () => {
      const subject = newSubject('user');
      await made.store.erase(subject, at(1));
      expect((await made.store.erasedAt(subject))?.toISOString()).to.equal(at(1).toISOString());
      expect(await made.store.putIfAbsent(new Map([[subject, newKeyText()]]))).to.have.property('size', 0);
      expect(await made.store.get([subject])).to.have.property('size', 0);
      expect((await made.store.erasedAt(subject))?.toISOString()).to.equal(at(1).toISOString());
    });

    it('leaves no key behind when an erasure races with calls that keep one', async () => {
      const subject = newSubject();
      await Promise.all([
        ...Array.from({ length: 5 }, () => made.store.putIfAbsent(new Map([[subject, newKeyText()]]))),
        made.store.erase(subject, T0),
        ...Array.from({ length: 5 }, () => made.store.putIfAbsent(new Map([[subject, newKeyText()]]))),
      ]);
      expect(await made.store.get([subject])).to.have.property('size', 0);
      expect(await made.store.putIfAbsent(new Map([[subject, newKeyText()]]))).to.have.property('size', 0);
      expect((await made.store.erasedAt(subject))?.toISOString()).to.equal(T0.toISOString());
    });

    if (!shared) return;

    it('keeps keys and erasures for another store on the same storage (a restart, another process)', async () => {
      const [kept, erased] = [newSubject(), newSubject()];
      const key = newKeyText();
      await made.store.putIfAbsent(
        new Map([
          [kept, key],
          [erased, newKeyText()],
        ]),
      );
      await made.store.erase(erased, T0);
      await withOther(async (other) => {
        expect([...(await other.get([kept, erased]))]).to.deep.equal([[kept, key]]);
        expect([...(await other.putIfAbsent(new Map([[kept, newKeyText()], [erased, newKeyText()]])))]).to.deep.equal([[kept, key]]);
        expect((await other.erasedAt(erased))?.toISOString()).to.equal(T0.toISOString());
      });
    });

    it('answers one key to concurrent calls through two stores on the same storage', async () => {
      const subject = newSubject();
      await withOther(async (other) => {
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? made.store : other).putIfAbsent(new Map([[subject, newKeyText()]]))),
        );
        const kept = answers[0]!.get(subject);
        expect(kept).to.be.a('string');
        for (const answer of answers) expect([...answer]).to.deep.equal([[subject, kept]]);
      });
    });
  });
};

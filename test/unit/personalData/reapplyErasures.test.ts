import { expect } from 'chai';
import { exportErasures, reapplyErasures, UnknownErasureKindError, type SubjectEraser } from '../../../src/application/personalData/reapplyErasures.js';
import { MalformedErasureLineError, parseErasureLines, type ErasureRecord } from '../../../src/shared/ErasureRecord.js';

const line = (id: string, kind: 'contact' | 'user' = 'contact'): ErasureRecord => ({ kind, id, companyId: 'co-1', erasedAt: '2026-03-01T10:00:00.000Z' });

/** An eraser of contacts that knows `known`, recording what it was asked to erase. */
const contactsKnowing = (known: readonly string[]): SubjectEraser & { readonly asked: string[] } => {
  const asked: string[] = [];
  return {
    kind: 'contact',
    asked,
    companyOf: async (id) => (known.includes(id) ? 'co-1' : null),
    reapply: async ({ id }) => {
      asked.push(id);
      return { known: known.includes(id), position: known.includes(id) ? String(10 + asked.length) : null };
    },
  };
};

describe('reapplyErasures', () => {
  describe('given a store that erased c-1 already', () => {
    const erased = async () => [{ subject: 'contact:c-1', erasedAt: new Date('2026-03-01T10:00:00.000Z') }];

    it('makes again only the others, counts a subject the log does not know apart, and a line seen twice as skipped', async () => {
      const eraser = contactsKnowing(['c-1', 'c-2']);
      const outcome = await reapplyErasures([line('c-1'), line('c-2'), line('c-3'), line('c-2')], { erased, erasers: [eraser] });
      expect(eraser.asked).to.deep.equal(['c-2', 'c-3']);
      expect(outcome).to.deep.equal({ applied: 1, skipped: 2, unknown: 1, position: '11' });
    });

    it('refuses lines of a kind no eraser handles before it applies any', async () => {
      const eraser = contactsKnowing(['c-2']);
      let refused: unknown = null;
      await reapplyErasures([line('c-2'), line('u-1', 'user')], { erased, erasers: [eraser] }).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(UnknownErasureKindError);
      expect(eraser.asked).to.deep.equal([]);
    });
  });

  it('exports the erased subjects its erasers know, leaving out other subjects and those the log does not know', async () => {
    const at = new Date('2026-03-02T10:00:00.000Z');
    const erased = [
      { subject: 'contact:c-1', erasedAt: at },
      { subject: 'chronicle:stream-names', erasedAt: at },
      { subject: 'contact:c-9', erasedAt: at },
    ];
    expect(await exportErasures(erased, { erasers: [contactsKnowing(['c-1'])] })).to.deep.equal({
      records: [{ kind: 'contact', id: 'c-1', companyId: 'co-1', erasedAt: at.toISOString() }],
      leftOut: 1,
    });
  });
});

describe('parseErasureLines', () => {
  it('reads one erasure a line, passing over blank lines', () => {
    const text = '{"kind":"contact","id":"c-1","companyId":"co-1","erasedAt":"2026-03-01T10:00:00.000Z"}\n\n';
    expect(parseErasureLines(text, 'journal')).to.deep.equal([line('c-1')]);
  });

  it('names the first line that is not an erasure, never its text', () => {
    for (const bad of ['not json', '{"kind":"contact","id":"c-1","companyId":"co-1","erasedAt":"yesterday"}', '{"kind":"deal","id":"d","companyId":"c","erasedAt":"2026-03-01T10:00:00.000Z"}']) {
      const text = `{"kind":"contact","id":"c-1","companyId":"co-1","erasedAt":"2026-03-01T10:00:00.000Z"}\n${bad}\n`;
      expect(() => parseErasureLines(text, 'journal'))
        .to.throw(MalformedErasureLineError, /^journal, line 2: not an erasure/)
        .that.satisfies((error: Error) => !error.message.includes(bad));
    }
  });
});

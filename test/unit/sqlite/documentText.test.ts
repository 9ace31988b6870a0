import { expect } from 'chai';
import fc from 'fast-check';
import { documentText, viewOfText } from '../../../src/adapters/sqlite/documentText.js';

const VIEW = 'v';

/** Keys that put the view's name (and things like it) at every depth. */
const key = fc.constantFrom('id', VIEW, 'a', 'b', 'v2', '"v"', ',"v":');
/** Strings that look like the view's key, its brace, quotes and backslashes. */
const text = fc.oneof(fc.string(), fc.constantFrom(',"v":', ',"v":{}}', '\\', '\\",\\"v\\":', '"}', '{'));
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const doc = fc.dictionary(key, value, { maxKeys: 6 });

/** What JSON keeps of a value. */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));

describe('SQLite document text and its view', () => {
  it('stores any document with its view last, and slices out exactly the view and the other fields', () => {
    fc.assert(
      fc.property(doc, (d) => {
        const stored = documentText(d, VIEW);
        expect(JSON.parse(stored)).to.deep.equal(asJson(d));
        if (Object.hasOwn(d, VIEW)) expect(Object.keys(JSON.parse(stored) as object).at(-1)).to.equal(VIEW);
        const { doc: head, json } = viewOfText(stored, VIEW);
        expect(JSON.parse(json)).to.deep.equal(asJson(d[VIEW]));
        for (const k of Object.keys(d).filter((k) => k !== VIEW)) {
          expect((head as unknown as Record<string, unknown>)[k]).to.deep.equal(asJson(d[k]));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('slices the view without parsing it when it is the last top-level field', () => {
    const stored = '{"id":"c1","companyId":"k","position":"7","revision":2,"v":{"name":"x","n":[1,{"v":2}]}}';
    const { doc: head, json } = viewOfText(stored, VIEW);
    expect(json).to.equal('{"name":"x","n":[1,{"v":2}]}');
    expect(head).to.deep.equal({ id: 'c1', companyId: 'k', position: '7', revision: 2 });
  });

  it('finds the top-level view after a nested field of the same name', () => {
    const stored = '{"id":"c1","companyId":"k","position":"7","meta":{"a":1,"v":"nested"},"v":{"name":"top"}}';
    const { doc: head, json } = viewOfText(stored, VIEW);
    expect(JSON.parse(json)).to.deep.equal({ name: 'top' });
    expect(head).to.include({ id: 'c1', position: '7' });
  });

  it('answers null for a document without its view', () => {
    expect(viewOfText('{"id":"c1","companyId":"k","position":"7"}', VIEW).json).to.equal('null');
    expect(documentText({ id: 'c1', companyId: 'k', position: '7' }, VIEW)).to.equal('{"id":"c1","companyId":"k","position":"7"}');
  });

  it('writes a document whose view is last as JSON.stringify does, and moves the view last otherwise', () => {
    const last = { id: 'c1', position: '7', v: { n: 1 } };
    expect(documentText(last, VIEW)).to.equal(JSON.stringify(last));
    expect(documentText({ id: 'c1', v: { n: 1 }, position: '7' }, VIEW)).to.equal('{"id":"c1","position":"7","v":{"n":1}}');
    expect(documentText({ v: 1, id: 'c1' }, undefined)).to.equal('{"v":1,"id":"c1"}');
  });
});

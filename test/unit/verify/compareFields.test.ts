import { expect } from 'chai';
import { compareFields, sameJson } from '../../../src/application/verify/compareFields.js';

describe('compareFields', () => {
  it('finds nothing when every field of the log is in the document with the same value', () => {
    const expected = { name: 'Ada', tags: ['a', 'b'], contact: { id: 'c1', email: null }, value: 0 };
    expect(compareFields(expected, { ...expected, contact: { ...expected.contact }, tags: ['a', 'b'] })).to.deep.equal([]);
  });

  it('names each differing leaf by its dotted path, with both values', () => {
    const differences = compareFields(
      { name: 'Ada', contact: { id: 'c1', name: 'Old', email: null }, value: 10 },
      { name: 'Ada', contact: { id: 'c1', name: 'New', email: 'x@example.com' }, value: '10' },
    );
    expect(differences).to.deep.equal([
      { field: 'contact.name', log: 'Old', readModel: 'New' },
      { field: 'contact.email', log: null, readModel: 'x@example.com' },
      { field: 'value', log: 10, readModel: '10' },
    ]);
  });

  it('compares arrays as a whole, in order', () => {
    expect(compareFields({ tags: ['a', 'b'] }, { tags: ['b', 'a'] })).to.deep.equal([{ field: 'tags', log: ['a', 'b'], readModel: ['b', 'a'] }]);
  });

  it('reports a field the document lacks, and one that is an object on one side only', () => {
    expect(compareFields({ name: 'Ada', contact: { id: 'c1' } }, { contact: null })).to.deep.equal([
      { field: 'name', log: 'Ada', readModel: undefined },
      { field: 'contact', log: { id: 'c1' }, readModel: null },
    ]);
  });

  it('ignores fields only the document carries', () => {
    expect(compareFields({ id: 'u1' }, { id: 'u1', name: 'Grace', email: 'g@example.com' })).to.deep.equal([]);
  });

  it('treats JSON values as equal by content', () => {
    expect(sameJson({ a: [1, { b: null }] }, { a: [1, { b: null }] })).to.equal(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).to.equal(false);
    expect(sameJson([1], { 0: 1 })).to.equal(false);
    expect(sameJson(null, undefined)).to.equal(false);
  });
});

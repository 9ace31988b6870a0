import { expect } from 'chai';
import { checkArrivals } from '../e2e/support/arrivals.js';

/** The receiver's check of the production-faults run (test/e2e/productionFaults.test.ts), on its own. */
describe('checking a subscription’s arrivals: every event, in order, none lost', () => {
  it('passes the events in order, a delivery repeated right after itself included', () => {
    expect(checkArrivals(['a', 'b', 'c'], ['a', 'b', 'b', 'c'])).to.deep.equal({ lost: [], outOfOrder: [], unexpected: [], repeated: 1 });
  });

  it('names what was lost', () => {
    expect(checkArrivals(['a', 'b', 'c'], ['a', 'c']).lost).to.deep.equal(['b']);
  });

  it('names an event that arrived after a later one, and an earlier event sent again later', () => {
    expect(checkArrivals(['a', 'b', 'c'], ['a', 'c', 'b']).outOfOrder).to.deep.equal([{ event: 'b', at: 2 }]);
    expect(checkArrivals(['a', 'b', 'c'], ['a', 'b', 'c', 'a']).outOfOrder).to.deep.equal([{ event: 'a', at: 3 }]);
  });

  it('names arrivals that were never expected', () => {
    expect(checkArrivals(['a'], ['a', 'x']).unexpected).to.deep.equal(['x']);
  });
});

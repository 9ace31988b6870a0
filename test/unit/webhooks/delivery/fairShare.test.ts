import { expect } from 'chai';
import { pickFairly } from '../../../../src/webhooks/fairShare.js';

const q = (companyId: string, n: number) => ({ companyId, subscriptionId: `${companyId}-${n}` });
const ids = (queues: readonly { subscriptionId: string }[]) => queues.map((queue) => queue.subscriptionId);
const none = { inFlight: new Map<string, number>(), lastServed: new Map<string, number>() };

describe('pickFairly: the free slots shared between companies', () => {
  it('hands slots round-robin across companies, one queue each per round, each company’s queues in the order given', () => {
    const due = [q('b', 1), q('b', 2), q('b', 3), q('a', 1), q('c', 1), q('a', 2)];
    expect(ids(pickFairly(due, 5, 10, none))).to.deep.equal(['b-1', 'a-1', 'c-1', 'b-2', 'a-2']);
  });

  it('never puts more than `perCompany` of one company in flight, counting those already in flight', () => {
    const due = [q('b', 1), q('b', 2), q('b', 3), q('b', 4), q('a', 1)];
    const state = { inFlight: new Map([['b', 2]]), lastServed: new Map<string, number>() };
    expect(ids(pickFairly(due, 10, 3, state))).to.deep.equal(['b-1', 'a-1']);
  });

  it('gives a company at its cap nothing, and the next company the slot', () => {
    const due = [q('b', 1), q('a', 1)];
    expect(ids(pickFairly(due, 1, 4, { inFlight: new Map([['b', 4]]), lastServed: new Map() }))).to.deep.equal(['a-1']);
  });

  it('serves the company served least recently first', () => {
    const due = [q('b', 1), q('a', 1), q('c', 1)];
    const lastServed = new Map([['b', 9], ['a', 3]]);
    expect(ids(pickFairly(due, 2, 10, { inFlight: new Map(), lastServed }))).to.deep.equal(['c-1', 'a-1']);
  });

  it('picks nothing without free slots or candidates', () => {
    expect(pickFairly([q('a', 1)], 0, 4, none)).to.deep.equal([]);
    expect(pickFairly([], 5, 4, none)).to.deep.equal([]);
  });
});

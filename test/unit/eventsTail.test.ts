import { expect } from 'chai';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { companyOf, formatTailJson, formatTailLine, matchesTail, withoutSecrets } from '../../src/cli/commands/events.js';

const recorded = (over: Partial<RecordedEvent> = {}): RecordedEvent => ({
  id: 'e1',
  stream: 'contact-c1',
  revision: 3,
  position: '42',
  type: 'ContactUpdated',
  data: { contactId: 'c1', companyId: 'co-data' },
  metadata: { source: 'api', correlationId: 'r1', companyId: 'co-1' },
  recordedAt: '2026-01-02T03:04:05.678Z',
  ...over,
});

describe('chronicle events tail: filters and output', () => {
  it("takes the company from the metadata, else from the event's data, else none", () => {
    expect(companyOf(recorded())).to.equal('co-1');
    expect(companyOf(recorded({ metadata: { source: 'cli', correlationId: 'r' } }))).to.equal('co-data');
    expect(companyOf(recorded({ metadata: { source: 'cli', correlationId: 'r' }, data: { contactId: 'c1' } }))).to.equal(null);
    expect(companyOf(recorded({ metadata: { source: 'cli', correlationId: 'r' }, data: null }))).to.equal(null);
  });

  it('matches the exact stream and the company, both when both are given', () => {
    expect(matchesTail({}, recorded())).to.equal(true);
    expect(matchesTail({ stream: 'contact-c1' }, recorded())).to.equal(true);
    expect(matchesTail({ stream: 'contact-c' }, recorded())).to.equal(false);
    expect(matchesTail({ companyId: 'co-1' }, recorded())).to.equal(true);
    expect(matchesTail({ companyId: 'co-data' }, recorded())).to.equal(false);
    expect(matchesTail({ stream: 'contact-c1', companyId: 'co-2' }, recorded())).to.equal(false);
  });

  it('prints position, stream, revision, type and time on one line', () => {
    expect(formatTailLine(recorded())).to.equal('42  contact-c1  rev 3  ContactUpdated  2026-01-02T03:04:05.678Z');
  });

  it('prints the whole event as one JSON line', () => {
    expect(JSON.parse(formatTailJson(recorded()))).to.deep.equal({
      position: '42',
      stream: 'contact-c1',
      revision: 3,
      type: 'ContactUpdated',
      id: 'e1',
      recordedAt: '2026-01-02T03:04:05.678Z',
      data: { contactId: 'c1', companyId: 'co-data' },
      metadata: { source: 'api', correlationId: 'r1', companyId: 'co-1' },
    });
  });

  it('replaces the value of any secret-named field, at any depth', () => {
    expect(withoutSecrets({ a: 1, Secret: 'whsec_x', nested: [{ apiKey: 'chr_x', keyHint: 'chr_...abcd' }], token: null })).to.deep.equal({
      a: 1,
      Secret: '[redacted]',
      nested: [{ apiKey: '[redacted]', keyHint: 'chr_...abcd' }],
      token: '[redacted]',
    });
    expect(JSON.parse(formatTailJson(recorded({ data: { key: 'chr_secret' } }))).data).to.deep.equal({ key: '[redacted]' });
  });
});

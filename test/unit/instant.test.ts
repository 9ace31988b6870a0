import { expect } from 'chai';
import { parseInstant } from '../../src/shared/instant.js';

describe('parseInstant', () => {
  describe('given a date alone', () => {
    it('reads it as midnight UTC', () => expect(parseInstant('2024-05-01')).to.equal('2024-05-01T00:00:00.000Z'));
    it('accepts 29 February of a leap year', () => expect(parseInstant('2024-02-29')).to.equal('2024-02-29T00:00:00.000Z'));
    it('keeps years before 100 as written', () => expect(parseInstant('0050-01-01')).to.equal('0050-01-01T00:00:00.000Z'));
    for (const raw of ['2023-02-29', '2024-02-30', '2024-04-31', '2024-13-01', '2024-00-10', '2024-5-1', '01.05.2024']) {
      it(`refuses ${raw}`, () => expect(parseInstant(raw)).to.equal(null));
    }
  });

  describe('given a date-time with a zone', () => {
    const cases: [string, string][] = [
      ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00.000Z'],
      ['2024-05-01T10:00Z', '2024-05-01T10:00:00.000Z'],
      ['2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00.000Z'],
      ['2024-05-01T12:00:00+0200', '2024-05-01T10:00:00.000Z'],
      ['2024-05-01T00:30:00-01:00', '2024-05-01T01:30:00.000Z'],
      ['2024-05-01 10:00:00.5Z', '2024-05-01T10:00:00.500Z'],
      ['2024-05-01T10:00:00.123456789Z', '2024-05-01T10:00:00.123Z'],
      [' 2024-05-01T10:00:00Z ', '2024-05-01T10:00:00.000Z'],
    ];
    for (const [raw, expected] of cases) {
      it(`reads ${JSON.stringify(raw)} as ${expected}`, () => expect(parseInstant(raw)).to.equal(expected));
    }
  });

  describe('given a date-time that is not one', () => {
    for (const raw of [
      '2024-05-01T10:00:00',
      '2024-05-01T24:00:00Z',
      '2024-05-01T10:60:00Z',
      '2024-05-01T10:00:60Z',
      '2024-05-01T10:00:00+24:00',
      '0000-01-01T00:00:00+01:00',
      'tomorrow',
      '',
    ]) {
      it(`refuses ${JSON.stringify(raw)}`, () => expect(parseInstant(raw)).to.equal(null));
    }
  });
});

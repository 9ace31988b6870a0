import { expect } from 'chai';
import { normalizePhoneNumber, parsePhoneNumber } from '../../../src/features/contacts/domain/phoneNumber.js';

describe('normalizePhoneNumber', () => {
  describe('given one number written three ways', () => {
    it('makes them collide', () => {
      expect(['+49 151 000', '+49151000', '0049-151-000'].map(normalizePhoneNumber)).to.deep.equal([
        '+49151000',
        '+49151000',
        '+49151000',
      ]);
    });
  });

  describe('given separators', () => {
    it('strips spaces, dots, dashes and parentheses', () => {
      expect(normalizePhoneNumber(' +1 (555) 123.45-67 ')).to.equal('+15551234567');
    });
  });

  describe('given a national number', () => {
    it('keeps it as it is (no country is guessed)', () => {
      expect(normalizePhoneNumber('0151 000')).to.equal('0151000');
    });
  });

  describe('given a leading 00', () => {
    it('turns it into +', () => expect(normalizePhoneNumber('00 1 555')).to.equal('+1555'));
  });
});

describe('parsePhoneNumber', () => {
  describe('given valid numbers', () => {
    it('returns the normalised form', () => {
      expect(parsePhoneNumber('123')).to.equal('123');
      expect(parsePhoneNumber('+123456789012345')).to.equal('+123456789012345');
      expect(parsePhoneNumber('0049 (0) 151-000')).to.equal('+490151000');
    });
  });

  describe('given invalid numbers', () => {
    for (const input of ['12', '+1 2', '1234567890123456', '+49 151 abc', '49+151', '++49151', '', '   ', '---', '+', '1/2/3']) {
      it(`refuses ${JSON.stringify(input)}`, () => expect(parsePhoneNumber(input)).to.equal(null));
    }
  });
});

import { expect } from 'chai';
import {
  RESERVATION_GRACE_PERIOD_MS,
  phoneReservationDecider,
} from '../../../src/features/contacts/domain/phoneReservationDecider.js';
import {
  phoneReservationStream,
  type PhoneNumberReleased,
  type PhoneNumberReserved,
} from '../../../src/features/contacts/domain/phoneReservationEvents.js';
import type { ReservePhoneNumber } from '../../../src/features/contacts/domain/phoneReservationCommands.js';
import { specFor } from '../../support/givenWhenThen.js';

const spec = specFor(phoneReservationDecider);
const T0 = Date.parse('2024-05-01T10:00:00.000Z');
const at = (ms: number): string => new Date(T0 + ms).toISOString();
const JUST_INSIDE = RESERVATION_GRACE_PERIOD_MS - 1;
const PAST_GRACE = RESERVATION_GRACE_PERIOD_MS;

const reserved = (contactId: string, time: string, takenOverFrom?: string): PhoneNumberReserved => ({
  type: 'PhoneNumberReserved',
  data: { companyId: 'co-1', contactId, at: time, ...(takenOverFrom ? { takenOverFrom } : {}) },
});
const released = (contactId: string, time: string): PhoneNumberReleased => ({
  type: 'PhoneNumberReleased',
  data: { contactId, at: time },
});
const reserve = (contactId: string, time: string, holderCheck?: ReservePhoneNumber['holderCheck']): ReservePhoneNumber => ({
  type: 'ReservePhoneNumber',
  companyId: 'co-1',
  phoneNumber: '+49151000',
  contactId,
  at: new Date(time),
  ...(holderCheck ? { holderCheck } : {}),
});

describe('phone reservation decider', () => {
  describe('given a free number (no stream)', () => {
    it('reserves it', () => spec.given().when(reserve('c-1', at(0))).then(reserved('c-1', at(0))));
    it('releases nothing', () => spec.given().when({ type: 'ReleasePhoneNumber', contactId: 'c-1', at: new Date(at(0)) }).then());
  });

  describe('given a number reserved within the grace period', () => {
    it('refuses another contact: taken', () =>
      spec.given(reserved('c-1', at(0))).when(reserve('c-2', at(JUST_INSIDE))).thenError({ kind: 'PhoneNumberTaken', contactId: 'c-1' }));
    it('refuses another contact even if the holder is known not to have the number yet (in flight)', () =>
      spec
        .given(reserved('c-1', at(0)))
        .when(reserve('c-2', at(JUST_INSIDE), { contactId: 'c-1', hasNumber: false }))
        .thenError({ kind: 'PhoneNumberTaken', contactId: 'c-1' }));
    it('reserves it again for its holder (refreshing the time)', () =>
      spec.given(reserved('c-1', at(0))).when(reserve('c-1', at(10))).then(reserved('c-1', at(10))));
  });

  describe('given a number reserved longer ago than the grace period', () => {
    const given = spec.given(reserved('c-1', at(0)));
    it('asks for the holder to be checked', () =>
      given.when(reserve('c-2', at(PAST_GRACE))).thenError({ kind: 'HolderUnverified', contactId: 'c-1' }));
    it('asks again when the check is about another contact', () =>
      given
        .when(reserve('c-2', at(PAST_GRACE), { contactId: 'c-9', hasNumber: false }))
        .thenError({ kind: 'HolderUnverified', contactId: 'c-1' }));
    it('refuses another contact when the holder has the number: taken', () =>
      given
        .when(reserve('c-2', at(PAST_GRACE), { contactId: 'c-1', hasNumber: true }))
        .thenError({ kind: 'PhoneNumberTaken', contactId: 'c-1' }));
    it('takes over a stale reservation whose holder does not have the number', () =>
      given
        .when(reserve('c-2', at(PAST_GRACE), { contactId: 'c-1', hasNumber: false }))
        .then(reserved('c-2', at(PAST_GRACE), 'c-1')));
  });

  describe('given a reserved number', () => {
    const given = spec.given(reserved('c-1', at(0)));
    it('is released by its holder', () =>
      given.when({ type: 'ReleasePhoneNumber', contactId: 'c-1', at: new Date(at(5)) }).then(released('c-1', at(5))));
    it('is not released by another contact', () => given.when({ type: 'ReleasePhoneNumber', contactId: 'c-2', at: new Date(at(5)) }).then());
  });

  describe('given a released number', () => {
    const given = spec.given(reserved('c-1', at(0)), released('c-1', at(5)));
    it('is reserved again by another contact at once', () => given.when(reserve('c-2', at(6))).then(reserved('c-2', at(6))));
    it('is reserved again by its former holder', () => given.when(reserve('c-1', at(6))).then(reserved('c-1', at(6))));
    it('is not released twice', () => given.when({ type: 'ReleasePhoneNumber', contactId: 'c-1', at: new Date(at(7)) }).then());
  });

  describe('given a number taken over from a stale holder', () => {
    const given = spec.given(reserved('c-1', at(0)), reserved('c-2', at(PAST_GRACE), 'c-1'));
    it('ignores a late release by the former holder', () =>
      given.when({ type: 'ReleasePhoneNumber', contactId: 'c-1', at: new Date(at(PAST_GRACE + 1)) }).then());
    it('counts the new reservation', () =>
      given.when(reserve('c-1', at(PAST_GRACE + 1))).thenError({ kind: 'PhoneNumberTaken', contactId: 'c-2' }));
  });
});

describe('phoneReservationStream', () => {
  it('names the company and the number, escaped for stream names', () => {
    expect(phoneReservationStream('0190a4b2-7c1e-7000-8000-000000000001', '+49151000')).to.equal(
      'phone-0190a4b2%2D7c1e%2D7000%2D8000%2D000000000001-%2B49151000',
    );
  });
  it('escapes every character as the byte-wise escape of its UTF-8 it always did (stored names), over random texts', () => {
    // The first implementation, kept as the reference: every UTF-8 byte outside A-Z a-z 0-9 _ as %HH.
    const reference = (part: string) =>
      Array.from(new TextEncoder().encode(part), (byte) =>
        /[A-Za-z0-9_]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
      ).join('');
    const alphabet = ['a', 'Z', '0', '9', '_', '-', '+', ' ', '%', '/', 'é', 'ß', '€', '日', '😀', '\ud800', '\udfff', '\u0000', '\u007f', '\u0080'];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join('');
      expect(phoneReservationStream(text, text), JSON.stringify(text)).to.equal(`phone-${reference(text)}-${reference(text)}`);
    }
  });
  it('keeps different pairs apart', () => {
    expect(phoneReservationStream('a-b', '123')).not.to.equal(phoneReservationStream('a', 'b-123'));
    expect(phoneReservationStream('co', '+123')).not.to.equal(phoneReservationStream('co', '123'));
  });
});

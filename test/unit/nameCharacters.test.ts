import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { validateCreateContact, validateUpdateContact } from '../../src/features/contacts/domain/contactInput.js';
import { validateCreateDeal } from '../../src/features/deals/domain/dealInput.js';
import { DisplayName } from '../../src/shared/DisplayName.js';
import type { InputProblem } from '../../src/shared/InputProblem.js';
import { nameCharacterProblem } from '../../src/shared/nameCharacters.js';
import { formatValidationErrors } from '../../src/shared/validationReporter.js';

const BIDI = 'must not contain bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)';
const INVISIBLE = 'must contain a visible character';

/** Every bidirectional embedding, override and isolate. */
const BIDI_CONTROLS = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069'];

/** Names with nothing visible (none of them empty once trimmed). */
const INVISIBLE_NAMES = [
  '\u200B', // zero-width space
  '\u200C', // zero-width non-joiner
  '\u200D', // zero-width joiner
  '\u2060', // word joiner
  '\u00AD', // soft hyphen
  '\u200E\u200F\u061C', // the bidirectional marks alone
  '\u180E', // Mongolian vowel separator
  '\u034F', // combining grapheme joiner
  '\uFE0F', // a variation selector
  '\u3164', // Hangul filler
  '\u{E0041}', // a tag character
  '\u200B \u200C\u3000\u200D', // mixed with whitespace
  '\u200B\uFEFF\u200B', // a BOM between (a leading or trailing BOM is trimmed as whitespace)
];

/** Names that stay allowed, invisible characters and marks inside visible text included. */
const ALLOWED_NAMES = [
  'Zoë Ångström-Núñez', // accents
  '\u200Fשלום\u200F', // RLM
  'Acme\u200E (EU)', // LRM
  '\u061Cمرحبا', // ALM
  'Family 👨\u200D👩\u200D👧', // emoji ZWJ sequence
  'Sales 👩🏽\u200D💻', // ZWJ with a skin tone
  'می\u200Cخواهم', // Persian word with ZWNJ
  'Mo\u00ADhammed', // a soft hyphen inside
  '東京 株式会社',
];

const messageOf = (decoded: E.Either<t.Errors, unknown>): string => {
  if (E.isRight(decoded)) return expect.fail(`expected a refusal, got ${JSON.stringify(decoded.right)}`);
  return Object.values(formatValidationErrors(decoded.left))[0] ?? '';
};

const detailsOf = <A>(result: E.Either<InputProblem, A>): Readonly<Record<string, string>> => {
  if (E.isRight(result)) return expect.fail(`expected a refusal, got ${JSON.stringify(result.right)}`);
  if (result.left.kind !== 'Invalid') return expect.fail(`expected Invalid, got ${JSON.stringify(result.left)}`);
  return result.left.details;
};

/** A name's code points, for a failure's message (most of them show nothing). */
const shown = (name: string): string => [...name].map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

describe('Names that lie: the rule', () => {
  it('refuses every bidirectional embedding, override and isolate, alone or inside a visible name', () => {
    for (const control of BIDI_CONTROLS) {
      expect(nameCharacterProblem(`Acme${control}gnp.exe`), shown(control)).to.equal('BidiControl');
      expect(nameCharacterProblem(control), shown(control)).to.equal('BidiControl');
    }
  });

  it('refuses a name with nothing visible once whitespace, format and default-ignorable characters are removed', () => {
    for (const name of INVISIBLE_NAMES) expect(nameCharacterProblem(name), shown(name)).to.equal('NothingVisible');
  });

  it('allows accents, the marks LRM, RLM and ALM, ZWJ in emoji and ZWNJ in Persian words', () => {
    for (const name of ALLOWED_NAMES) expect(nameCharacterProblem(name), shown(name)).to.equal(null);
  });
});

describe('Names that lie: DisplayName (companies, keys, users, agents, admin tokens)', () => {
  it('refuses a bidirectional override or isolate, saying why', () => {
    for (const control of BIDI_CONTROLS) expect(messageOf(DisplayName.decode(`Acme${control}Corp`))).to.equal(BIDI);
    expect(DisplayName.is('Acme\u202ECorp')).to.equal(false);
  });

  it('refuses a name with nothing visible, saying why', () => {
    for (const name of INVISIBLE_NAMES) expect(messageOf(DisplayName.decode(name)), shown(name)).to.equal(INVISIBLE);
    expect(DisplayName.is('\u200B')).to.equal(false);
  });

  it('keeps its other messages: blank, too long, control characters', () => {
    expect(messageOf(DisplayName.decode('  '))).to.equal('must be 1 to 200 characters without control characters');
    expect(messageOf(DisplayName.decode('\u200B'.repeat(201)))).to.equal('must be 1 to 200 characters without control characters');
    expect(messageOf(DisplayName.decode('bell\u0007\u202E'))).to.equal('must be 1 to 200 characters without control characters');
  });

  it('allows the names the rule allows, trimmed', () => {
    for (const name of ALLOWED_NAMES) {
      const decoded = DisplayName.decode(` ${name} `);
      expect(E.isRight(decoded) && decoded.right, shown(name)).to.equal(name);
      expect(DisplayName.is(name)).to.equal(true);
    }
  });
});

describe('Names that lie: contacts and deals', () => {
  const phoneNumber = '+4915112345678';

  it('refuses a contact name, first or last name holding an override, or nothing visible', () => {
    expect(detailsOf(validateCreateContact({ name: 'Ada\u202Eecalevol', phoneNumber }))).to.deep.equal({ name: `name ${BIDI}` });
    expect(detailsOf(validateCreateContact({ name: '\u200B\u200D', phoneNumber }))).to.deep.equal({ name: `name ${INVISIBLE}` });
    expect(detailsOf(validateCreateContact({ name: 'Ada', phoneNumber, firstName: '\u2066Ada\u2069', lastName: '\u2060' }))).to.deep.equal({
      firstName: `firstName ${BIDI}`,
      lastName: `lastName ${INVISIBLE}`,
    });
    expect(detailsOf(validateUpdateContact({ name: '\u200C' }))).to.deep.equal({ name: `name ${INVISIBLE}` });
  });

  it('keeps an optional name that is empty or null as no value, and other fields as they were', () => {
    const decoded = validateCreateContact({ name: 'Ada', phoneNumber, firstName: '  ', lastName: null, position: '\u200B' });
    expect(E.isRight(decoded) && decoded.right).to.deep.include({ firstName: null, lastName: null, position: '\u200B' });
  });

  it('allows contact names the rule allows', () => {
    for (const name of ALLOWED_NAMES) {
      const decoded = validateCreateContact({ name, phoneNumber, firstName: name, lastName: name });
      expect(E.isRight(decoded) && decoded.right, shown(name)).to.deep.include({ name, firstName: name, lastName: name });
    }
  });

  it('refuses a deal title holding an override, or nothing visible, and allows the others', () => {
    expect(detailsOf(validateCreateDeal({ title: 'Renewal\u202D', value: 1 }))).to.deep.equal({ title: `title ${BIDI}` });
    expect(detailsOf(validateCreateDeal({ title: '\u00AD\u200B', value: 1 }))).to.deep.equal({ title: `title ${INVISIBLE}` });
    for (const title of ALLOWED_NAMES) {
      const decoded = validateCreateDeal({ title, value: 1 });
      expect(E.isRight(decoded) && decoded.right.title, shown(title)).to.equal(title);
    }
  });
});

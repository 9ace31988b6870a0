import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { validateCreateContact, validateUpdateContact } from '../../../src/features/contacts/domain/contactInput.js';
import type { InputProblem } from '../../../src/shared/InputProblem.js';

const valid = { name: 'Ada Lovelace', phoneNumber: '+44 20 7946 0000' };

const problemOf = <A>(result: E.Either<InputProblem, A>): InputProblem => {
  if (E.isRight(result)) return expect.fail(`expected a problem, got ${JSON.stringify(result.right)}`);
  return result.left;
};
const valueOf = <A>(result: E.Either<InputProblem, A>): A => {
  if (E.isLeft(result)) return expect.fail(`expected a value, got ${JSON.stringify(result.left)}`);
  return result.right;
};
const invalid = (details: Record<string, string>): InputProblem => ({ kind: 'Invalid', details });

describe('validateCreateContact', () => {
  describe('given a body that is not a JSON object', () => {
    for (const body of [null, undefined, 'text', 42, [valid], true]) {
      it(`refuses ${JSON.stringify(body)}`, () =>
        expect(problemOf(validateCreateContact(body))).to.deep.equal(invalid({ '(body)': 'must be a JSON object' })));
    }
  });

  describe('given the required fields only', () => {
    it('returns them trimmed, with the number normalised', () => {
      expect(valueOf(validateCreateContact({ name: '  Ada Lovelace ', phoneNumber: ' 0044 20 7946-0000 ' }))).to.deep.equal({
        name: 'Ada Lovelace',
        phoneNumber: '+442079460000',
      });
    });
  });

  describe('given every field', () => {
    it('returns every field trimmed', () => {
      const body = {
        ...valid,
        firstName: ' Ada ',
        lastName: 'Lovelace',
        email: ' ada@example.org ',
        position: 'Analyst',
        currentCompany: 'Analytical Engines Ltd',
        industrySector: 'Computing',
        city: 'London',
        country: 'UK',
        tags: [' vip ', 'math'],
      };
      expect(valueOf(validateCreateContact(body))).to.deep.equal({
        name: 'Ada Lovelace',
        phoneNumber: '+442079460000',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.org',
        position: 'Analyst',
        currentCompany: 'Analytical Engines Ltd',
        industrySector: 'Computing',
        city: 'London',
        country: 'UK',
        tags: ['vip', 'math'],
      });
    });
  });

  describe('given missing required fields', () => {
    it('lists both, name first, when both are absent', () =>
      expect(problemOf(validateCreateContact({}))).to.deep.equal({ kind: 'MissingFields', fields: ['name', 'phoneNumber'] }));
    it('counts null as missing', () =>
      expect(problemOf(validateCreateContact({ name: null, phoneNumber: '123' }))).to.deep.equal({
        kind: 'MissingFields',
        fields: ['name'],
      }));
    it('reports the missing fields before any invalid one', () =>
      expect(problemOf(validateCreateContact({ name: 'A', email: 'nope', tags: 'x' }))).to.deep.equal({
        kind: 'MissingFields',
        fields: ['phoneNumber'],
      }));
  });

  describe('given invalid fields', () => {
    it('reports every invalid field at once, one message each', () => {
      expect(
        problemOf(validateCreateContact({ name: '', phoneNumber: 'call me', email: 'nope', tags: [1], city: 7 })),
      ).to.deep.equal(
        invalid({
          name: 'name must be 1 to 255 characters',
          phoneNumber:
            'phoneNumber must have 3 to 15 digits, with an optional leading + and spaces, dots, dashes or parentheses',
          email: 'email must be a valid e-mail address',
          tags: 'tags must be an array of strings',
          city: 'city must be a string',
        }),
      );
    });
    it('counts a name of spaces only as empty', () =>
      expect(problemOf(validateCreateContact({ ...valid, name: '   ' }))).to.deep.equal(
        invalid({ name: 'name must be 1 to 255 characters' }),
      ));
    it('refuses a name that is not a string', () =>
      expect(problemOf(validateCreateContact({ ...valid, name: 5 }))).to.deep.equal(invalid({ name: 'name must be a string' })));
  });

  describe('given strings at and over their limits', () => {
    const limits = {
      name: 255,
      firstName: 100,
      lastName: 100,
      position: 100,
      industrySector: 100,
      city: 100,
      country: 100,
      currentCompany: 255,
    } as const;
    for (const [field, max] of Object.entries(limits)) {
      it(`accepts ${field} of ${max} characters and refuses ${max + 1}`, () => {
        expect(valueOf(validateCreateContact({ ...valid, [field]: 'x'.repeat(max) }))).to.have.property(field, 'x'.repeat(max));
        const message = field === 'name' ? 'name must be 1 to 255 characters' : `${field} must be at most ${max} characters`;
        expect(problemOf(validateCreateContact({ ...valid, [field]: 'x'.repeat(max + 1) }))).to.deep.equal(
          invalid({ [field]: message }),
        );
      });
    }
    it('measures the length after trimming', () =>
      expect(valueOf(validateCreateContact({ ...valid, city: ` ${'x'.repeat(100)} ` }))).to.have.property('city', 'x'.repeat(100)));
  });

  describe('given optional fields that are null or empty', () => {
    it('returns them as null (no value)', () => {
      expect(valueOf(validateCreateContact({ ...valid, firstName: null, email: '  ', tags: null }))).to.deep.equal({
        name: 'Ada Lovelace',
        phoneNumber: '+442079460000',
        firstName: null,
        email: null,
        tags: [],
      });
    });
  });

  describe('given e-mail addresses', () => {
    for (const email of ['a@b.co', 'first.last+tag@sub.example.com', "o'hara@example.ie"]) {
      it(`accepts ${email}`, () => expect(valueOf(validateCreateContact({ ...valid, email }))).to.have.property('email', email));
    }
    const tooLong = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`; // 255 characters
    for (const email of ['plain', 'a@b', '@example.org', 'a@@example.org', 'a b@example.org', 'a@-example.org', 'a@example..org', tooLong, 42]) {
      it(`refuses ${JSON.stringify(email).slice(0, 40)}`, () =>
        expect(problemOf(validateCreateContact({ ...valid, email }))).to.deep.equal(
          invalid({ email: 'email must be a valid e-mail address' }),
        ));
    }
    it('accepts 254 characters', () => {
      const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
      expect(email).to.have.length(254);
      expect(valueOf(validateCreateContact({ ...valid, email }))).to.have.property('email', email);
    });
  });

  describe('given tags', () => {
    it('trims and removes duplicates, keeping the first occurrence', () =>
      expect(valueOf(validateCreateContact({ ...valid, tags: ['b', 'a', ' b', 'c', 'a'] }))).to.have.deep.property('tags', [
        'b',
        'a',
        'c',
      ]));
    it('accepts 50 tags of 50 characters', () => {
      const tags = Array.from({ length: 50 }, (_, i) => String(i).padStart(50, 'x'));
      expect(valueOf(validateCreateContact({ ...valid, tags }))).to.have.deep.property('tags', tags);
    });
    it('refuses 51 distinct tags', () =>
      expect(problemOf(validateCreateContact({ ...valid, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }))).to.deep.equal(
        invalid({ tags: 'tags must hold at most 50 tags' }),
      ));
    it('counts tags after removing duplicates', () =>
      expect(valueOf(validateCreateContact({ ...valid, tags: Array.from({ length: 60 }, () => 'same') }))).to.have.deep.property(
        'tags',
        ['same'],
      ));
    for (const tag of ['', '   ', 'x'.repeat(51)]) {
      it(`refuses a tag of ${tag.length} characters`, () =>
        expect(problemOf(validateCreateContact({ ...valid, tags: ['ok', tag] }))).to.deep.equal(
          invalid({ tags: 'each tag must be 1 to 50 characters' }),
        ));
    }
    for (const tags of ['vip', ['vip', 3], { 0: 'vip' }]) {
      it(`refuses ${JSON.stringify(tags)}`, () =>
        expect(problemOf(validateCreateContact({ ...valid, tags }))).to.deep.equal(invalid({ tags: 'tags must be an array of strings' })));
    }
  });

  describe('given phone numbers', () => {
    it('refuses a number that is not a string', () =>
      expect(problemOf(validateCreateContact({ ...valid, phoneNumber: 4930123 }))).to.deep.equal(
        invalid({ phoneNumber: 'phoneNumber must be a string' }),
      ));
    it('refuses 16 digits', () =>
      expect(problemOf(validateCreateContact({ ...valid, phoneNumber: '+1234 5678 9012 3456' }))).to.have.nested.property(
        'details.phoneNumber',
      ));
  });

  describe('given unknown and server-owned fields', () => {
    it('ignores them', () =>
      expect(
        valueOf(
          validateCreateContact({
            ...valid,
            id: 'mine',
            createdAt: '2000-01-01T00:00:00.000Z',
            updatedAt: '2000-01-01T00:00:00.000Z',
            companyId: 'other',
            favouriteColour: 'blue',
          }),
        ),
      ).to.deep.equal({ name: 'Ada Lovelace', phoneNumber: '+442079460000' }));
  });
});

describe('validateUpdateContact', () => {
  describe('given a body that is not a JSON object', () => {
    it('refuses it', () =>
      expect(problemOf(validateUpdateContact([]))).to.deep.equal(invalid({ '(body)': 'must be a JSON object' })));
  });

  describe('given no known field', () => {
    for (const body of [{}, { id: 'x', createdAt: '2000-01-01T00:00:00Z', other: 1 }]) {
      it(`refuses ${JSON.stringify(body)}`, () =>
        expect(problemOf(validateUpdateContact(body))).to.deep.equal(invalid({ '(body)': 'send at least one field to change' })));
    }
  });

  describe('given a subset of the fields', () => {
    it('returns only those, trimmed, with unknown fields dropped', () =>
      expect(valueOf(validateUpdateContact({ city: ' Paris ', phoneNumber: '0033 1 23', id: 'x', updatedAt: 'y' }))).to.deep.equal({
        city: 'Paris',
        phoneNumber: '+33123',
      }));
    it('accepts a new name', () => expect(valueOf(validateUpdateContact({ name: 'New' }))).to.deep.equal({ name: 'New' }));
  });

  describe('given nulls', () => {
    it('clears optional fields (tags become empty)', () =>
      expect(valueOf(validateUpdateContact({ email: null, city: null, tags: null }))).to.deep.equal({
        email: null,
        city: null,
        tags: [],
      }));
    it('refuses to clear name and phoneNumber', () =>
      expect(problemOf(validateUpdateContact({ name: null, phoneNumber: null }))).to.deep.equal(
        invalid({ name: 'name cannot be null', phoneNumber: 'phoneNumber cannot be null' }),
      ));
  });

  describe('given invalid values', () => {
    it('reports each field with the create rules', () =>
      expect(problemOf(validateUpdateContact({ name: 'x'.repeat(256), email: 'a@b', tags: ['ok', ''] }))).to.deep.equal(
        invalid({
          name: 'name must be 1 to 255 characters',
          email: 'email must be a valid e-mail address',
          tags: 'each tag must be 1 to 50 characters',
        }),
      ));
  });
});

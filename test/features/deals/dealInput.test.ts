import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { validateCreateDeal, validateDealStatusChange } from '../../../src/features/deals/domain/dealInput.js';
import type { InputProblem } from '../../../src/shared/InputProblem.js';

const valid = { title: 'Engines', value: 1000 };

const problemOf = <A>(result: E.Either<InputProblem, A>): InputProblem => {
  if (E.isRight(result)) return expect.fail(`expected a problem, got ${JSON.stringify(result.right)}`);
  return result.left;
};
const valueOf = <A>(result: E.Either<InputProblem, A>): A => {
  if (E.isLeft(result)) return expect.fail(`expected a value, got ${JSON.stringify(result.left)}`);
  return result.right;
};
/** Validates the valid body with `fields` added. */
const problemWith = (fields: object) => problemOf(validateCreateDeal({ ...valid, ...fields }));
const valueWith = (fields: object) => valueOf(validateCreateDeal({ ...valid, ...fields }));
const statusProblem = (body: unknown) => problemOf(validateDealStatusChange(body));
const statusValue = (body: unknown) => valueOf(validateDealStatusChange(body));
const invalid = (details: Record<string, string>): InputProblem => ({ kind: 'Invalid', details });
/** The fields named in an Invalid problem. */
const invalidFields = (problem: InputProblem): string[] => {
  if (problem.kind !== 'Invalid') return expect.fail(`expected Invalid, got ${JSON.stringify(problem)}`);
  return Object.keys(problem.details);
};

describe('validateCreateDeal', () => {
  describe('given a body that is not a JSON object', () => {
    for (const body of [null, undefined, 'text', 42, [valid], true]) {
      it(`refuses ${JSON.stringify(body)}`, () =>
        expect(problemOf(validateCreateDeal(body))).to.deep.equal(invalid({ '(body)': 'must be a JSON object' })));
    }
  });

  describe('given the required fields only', () => {
    it('returns them, title trimmed (defaults are the decider’s)', () =>
      expect(valueOf(validateCreateDeal({ title: '  Engines ', value: 0 }))).to.deep.equal({ title: 'Engines', value: 0 }));
  });

  describe('given every field', () => {
    it('returns them trimmed and normalised', () =>
      expect(
        valueOf(
          validateCreateDeal({
            title: 'Engines',
            value: 125000.5,
            description: ' Fleet ',
            currency: ' usd ',
            stage: ' Negotiation ',
            priority: 'high',
            probability: 60,
            expectedCloseDate: '2027-03-31T12:00:00+02:00',
            source: 'Referral',
            contactId: ' c-1 ',
            assignedToId: 'u-1',
          }),
        ),
      ).to.deep.equal({
        title: 'Engines',
        value: 125000.5,
        description: 'Fleet',
        currency: 'USD',
        stage: 'Negotiation',
        priority: 'high',
        probability: 60,
        expectedCloseDate: '2027-03-31T10:00:00.000Z',
        source: 'Referral',
        contactId: 'c-1',
        assignedToId: 'u-1',
      }));
  });

  describe('given server-owned and unknown fields', () => {
    it('ignores them: a new deal is open with no close date', () =>
      expect(
        valueOf(
          validateCreateDeal({
            ...valid,
            id: 'mine',
            status: 'won',
            actualCloseDate: '2024-01-01',
            createdAt: '2020-01-01T00:00:00Z',
            updatedAt: '2020-01-01T00:00:00Z',
            colour: 'blue',
          }),
        ),
      ).to.deep.equal(valid));
  });

  describe('given missing required fields', () => {
    it('reports title and value, in that order', () =>
      expect(problemOf(validateCreateDeal({ description: 'x' }))).to.deep.equal({ kind: 'MissingFields', fields: ['title', 'value'] }));

    it('counts null as missing', () =>
      expect(problemOf(validateCreateDeal({ title: null, value: 1 }))).to.deep.equal({ kind: 'MissingFields', fields: ['title'] }));

    it('reports them alone, before any invalid field', () =>
      expect(problemOf(validateCreateDeal({ title: 'x', probability: 500 }))).to.deep.equal({ kind: 'MissingFields', fields: ['value'] }));
  });

  describe('given a title', () => {
    it('accepts 255 characters', () => expect(valueWith({ title: 't'.repeat(255) }).title).to.have.length(255));
    it('refuses 256 characters', () =>
      expect(problemWith({ title: 't'.repeat(256) })).to.deep.equal(invalid({ title: 'title must be 1 to 255 characters' })));
    it('refuses one that is blank after trimming', () =>
      expect(problemWith({ title: '   ' })).to.deep.equal(invalid({ title: 'title must be 1 to 255 characters' })));
    it('refuses a number', () =>
      expect(problemWith({ title: 42 })).to.deep.equal(invalid({ title: 'title must be a string' })));
  });

  describe('given a value', () => {
    it('accepts 0 and fractions', () => {
      expect(valueWith({ value: 0 }).value).to.equal(0);
      expect(valueWith({ value: 0.01 }).value).to.equal(0.01);
    });
    it('accepts 1e15', () => expect(valueWith({ value: 1e15 }).value).to.equal(1e15));
    it('refuses a negative value', () =>
      expect(problemWith({ value: -1 })).to.deep.equal(invalid({ value: 'value must be a positive number or zero' })));
    it('refuses a number as a string', () =>
      expect(problemWith({ value: '100' })).to.deep.equal(invalid({ value: 'value must be a positive number or zero' })));
    it('refuses more than 1e15', () =>
      expect(invalidFields(problemWith({ value: 1e15 + 2 })))
        .to.deep.equal(['value']));
    it('refuses a boolean', () => expect(invalidFields(problemWith({ value: true }))).to.deep.equal(['value']));
  });

  describe('given a description', () => {
    it('accepts 5000 characters', () =>
      expect(valueWith({ description: 'd'.repeat(5000) }).description).to.have.length(5000));
    it('refuses 5001 characters', () =>
      expect(problemWith({ description: 'd'.repeat(5001) })).to.deep.equal(
        invalid({ description: 'description must be at most 5000 characters' }),
      ));
    it('reads null and blank as none', () => {
      expect(valueWith({ description: null }).description).to.equal(null);
      expect(valueWith({ description: '  ' }).description).to.equal(null);
    });
  });

  describe('given a currency', () => {
    it('upper-cases a lower-case code', () => expect(valueWith({ currency: 'gbp' }).currency).to.equal('GBP'));
    it('accepts an upper-case code', () => expect(valueWith({ currency: 'JPY' }).currency).to.equal('JPY'));
    it('reads null and blank as the default EUR', () => {
      expect(valueWith({ currency: null }).currency).to.equal('EUR');
      expect(valueWith({ currency: '' }).currency).to.equal('EUR');
    });
    for (const currency of ['ABC', 'EURO', 'E', 'US D', 978]) {
      it(`refuses ${JSON.stringify(currency)}`, () =>
        expect(problemWith({ currency })).to.deep.equal(
          invalid({ currency: 'currency must be an ISO 4217 currency code such as EUR or USD' }),
        ));
    }
  });

  describe('given a stage', () => {
    it('accepts 100 characters, trimmed', () =>
      expect(valueWith({ stage: ` ${'s'.repeat(100)} ` }).stage).to.equal('s'.repeat(100)));
    it('refuses 101 characters', () =>
      expect(problemWith({ stage: 's'.repeat(101) })).to.deep.equal(invalid({ stage: 'stage must be at most 100 characters' })));
    it('reads blank as none', () => expect(valueWith({ stage: ' ' }).stage).to.equal(null));
  });

  describe('given a priority', () => {
    for (const priority of ['low', 'medium', 'high'] as const) {
      it(`accepts ${priority}`, () => expect(valueWith({ priority }).priority).to.equal(priority));
    }
    it('reads null as the default medium', () => expect(valueWith({ priority: null }).priority).to.equal('medium'));
    it('refuses anything else', () =>
      expect(problemWith({ priority: 'urgent' })).to.deep.equal(
        invalid({ priority: 'priority must be one of low, medium, high' }),
      ));
  });

  describe('given a probability', () => {
    it('accepts 0, 100 and fractions', () => {
      for (const probability of [0, 100, 12.5]) {
        expect(valueWith({ probability }).probability).to.equal(probability);
      }
    });
    it('reads null as none', () => expect(valueWith({ probability: null }).probability).to.equal(null));
    for (const probability of [101, -1, '50']) {
      it(`refuses ${JSON.stringify(probability)}`, () =>
        expect(problemWith({ probability })).to.deep.equal(
          invalid({ probability: 'probability must be a number from 0 to 100' }),
        ));
    }
  });

  describe('given an expectedCloseDate', () => {
    it('reads a date alone as midnight UTC', () =>
      expect(valueWith({ expectedCloseDate: '2027-03-31' }).expectedCloseDate).to.equal('2027-03-31T00:00:00.000Z'));
    it('converts a date-time with an offset to UTC with milliseconds', () =>
      expect(valueWith({ expectedCloseDate: '2027-03-31T01:30:00-02:00' }).expectedCloseDate).to.equal(
        '2027-03-31T03:30:00.000Z',
      ));
    it('reads null as none', () =>
      expect(valueWith({ expectedCloseDate: null }).expectedCloseDate).to.equal(null));
    for (const expectedCloseDate of ['next week', '2027-02-30', '2027-03-31T10:00:00', 20270331]) {
      it(`refuses ${JSON.stringify(expectedCloseDate)}`, () =>
        expect(invalidFields(problemWith({ expectedCloseDate }))).to.deep.equal(['expectedCloseDate']));
    }
  });

  describe('given a source', () => {
    it('accepts 100 characters', () => expect(valueWith({ source: 's'.repeat(100) }).source).to.have.length(100));
    it('refuses 101 characters', () =>
      expect(problemWith({ source: 's'.repeat(101) })).to.deep.equal(invalid({ source: 'source must be at most 100 characters' })));
  });

  describe('given contact and user ids', () => {
    it('reads null and blank as none', () =>
      expect(valueWith({ contactId: null, assignedToId: ' ' })).to.deep.include({ contactId: null, assignedToId: null }));
    it('refuses ids that are not strings', () =>
      expect(problemWith({ contactId: 7, assignedToId: {} })).to.deep.equal(
        invalid({ contactId: 'contactId must be a string', assignedToId: 'assignedToId must be a string' }),
      ));
  });

  describe('given several invalid fields', () => {
    it('reports one message per field', () =>
      expect(
        invalidFields(
          problemOf(
            validateCreateDeal({
              title: 't'.repeat(256),
              value: -1,
              probability: 101,
              priority: 'urgent',
              currency: 'ABC',
              expectedCloseDate: 'next week',
            }),
          ),
        ),
      ).to.have.members(['title', 'value', 'probability', 'priority', 'currency', 'expectedCloseDate']));
  });
});

describe('validateDealStatusChange', () => {
  describe('given a body that is not a JSON object', () => {
    it('refuses it', () =>
      expect(statusProblem([])).to.deep.equal(invalid({ '(body)': 'must be a JSON object' })));
  });

  describe('given an empty body', () => {
    it('asks for at least one field', () =>
      expect(statusProblem({})).to.deep.equal(
        invalid({ '(body)': 'send at least one of status, stage, actualCloseDate' }),
      ));
  });

  describe('given each accepted field', () => {
    for (const status of ['open', 'won', 'lost'] as const) {
      it(`accepts status ${status}`, () => expect(statusValue({ status })).to.deep.equal({ status }));
    }
    it('accepts a stage, trimmed', () => expect(statusValue({ stage: ' Proposal ' })).to.deep.equal({ stage: 'Proposal' }));
    it('reads a null or blank stage as clearing it', () => {
      expect(statusValue({ stage: null })).to.deep.equal({ stage: null });
      expect(statusValue({ stage: '' })).to.deep.equal({ stage: null });
    });
    it('reads a date-only actualCloseDate as midnight UTC', () =>
      expect(statusValue({ status: 'won', actualCloseDate: '2026-10-01' })).to.deep.equal({
        status: 'won',
        actualCloseDate: '2026-10-01T00:00:00.000Z',
      }));
  });

  describe('given invalid values', () => {
    it('refuses an unknown status', () =>
      expect(statusProblem({ status: 'archived' })).to.deep.equal(invalid({ status: 'status must be one of open, won, lost' })));
    it('refuses a null status', () =>
      expect(invalidFields(statusProblem({ status: null }))).to.deep.equal(['status']));
    it('refuses a stage of 101 characters', () =>
      expect(statusProblem({ stage: 's'.repeat(101) })).to.deep.equal(invalid({ stage: 'stage must be at most 100 characters' })));
    it('refuses a null or malformed actualCloseDate', () => {
      expect(invalidFields(statusProblem({ status: 'won', actualCloseDate: null }))).to.deep.equal(['actualCloseDate']);
      expect(invalidFields(statusProblem({ status: 'won', actualCloseDate: '01/10/2026' }))).to.deep.equal(['actualCloseDate']);
    });
  });

  describe('given fields this endpoint does not change', () => {
    it('refuses probability, naming it', () =>
      expect(statusProblem({ probability: 90 })).to.deep.equal(
        invalid({ probability: 'cannot be changed by this endpoint' }),
      ));

    it('refuses them beside accepted fields too, naming each', () =>
      expect(statusProblem({ status: 'won', probability: 100, title: 'X', updatedAt: 'now' })).to.deep.equal(
        invalid({
          probability: 'cannot be changed by this endpoint',
          title: 'cannot be changed by this endpoint',
          updatedAt: 'cannot be changed by this endpoint',
        }),
      ));

    it('reports them with the invalid accepted fields', () =>
      expect(statusProblem({ status: 'done', value: 1 })).to.deep.equal(
        invalid({ status: 'status must be one of open, won, lost', value: 'cannot be changed by this endpoint' }),
      ));
  });
});

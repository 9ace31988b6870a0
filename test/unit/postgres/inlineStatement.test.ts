import { expect } from 'chai';
import fc from 'fast-check';
import pg from 'pg';
import { inlined, type Statement } from '../../../src/adapters/postgres/inlineStatement.js';
import { skipLine } from '../../support/integration.js';
import { postgresTestUrl } from '../../support/postgres.js';

describe('inlined statements', () => {
  it('leave placeholders inside quoted literals and identifiers alone', () => {
    const text = `SELECT 'it''s $1' AS a, $1::text AS "col $2 ""x""", $2::integer[] AS b`;
    expect(inlined({ text, values: ['v', [1, 2]] })).to.equal(`SELECT 'it''s $1' AS a, 'v'::text AS "col $2 ""x""", '{"1","2"}'::integer[] AS b`);
  });

  it('refuse a placeholder without a value, and a value they cannot write', () => {
    expect(() => inlined({ text: 'SELECT $2', values: ['one'] })).to.throw(/No value for \$2/);
    expect(() => inlined({ text: 'SELECT $1', values: [{}] })).to.throw(/Cannot write object/);
    expect(() => inlined({ text: 'SELECT $1', values: [Number.NaN] })).to.throw(/Cannot write number/);
    expect(() => inlined({ text: 'SELECT $1', values: [['a', 'b\u0000']] })).to.throw(/Cannot write NUL/);
  });
});

if (!postgresTestUrl()) {
  skipLine('inlined statements on PostgreSQL', 'POSTGRES_TEST_URL');
} else {
  describe('inlined statements on PostgreSQL', function () {
    this.timeout(60_000);
    let client: pg.Client;
    before(async () => {
      client = new pg.Client({ connectionString: postgresTestUrl()! });
      await client.connect();
    });
    after(() => client.end());

    /** What PostgreSQL reads from the statement with its values as parameters, and inlined in a simple query with another. */
    const both = async (statement: Statement) => {
      const parameters = await client.query(statement.text, statement.values as unknown[]);
      const simple = (await client.query(`SELECT 1;\n${inlined(statement)}`)) as unknown as pg.QueryResult[];
      return [parameters.rows, simple[1]!.rows];
    };

    it('read every value as its parameter would be read: texts of any characters, arrays with NULLs, numbers, json', async () => {
      // Well-formed texts of any characters but NUL (which PostgreSQL's text cannot hold), the ones quoting and arrays use often.
      const char = fc.oneof(
        fc.constantFrom("'", '"', '\\', '{', '}', ',', ' ', '\n', '$', '1', 'NULL', 'E'),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }).filter((c) => !c.includes('\u0000')),
      );
      const text = fc.array(char, { maxLength: 20 }).map((chars) => chars.join(''));
      await fc.assert(
        fc.asyncProperty(
          text,
          fc.array(fc.option(text, { nil: null }), { maxLength: 6 }),
          fc.array(fc.integer(), { maxLength: 6 }),
          fc.array(fc.jsonValue().map((v) => JSON.stringify(v)), { maxLength: 4 }),
          fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          async (one, many, numbers, jsons, big) => {
            const [parameters, simple] = await both({
              text: 'SELECT $1::text AS one, $2::text[] AS many, $3::integer[] AS numbers, $4::jsonb[] AS jsons, $5::bigint AS big, $6::text AS nothing',
              values: [one, many, numbers, jsons, big, null],
            });
            expect(simple).to.deep.equal(parameters);
            expect(simple![0]).to.deep.include({ one, many, numbers, nothing: null });
          },
        ),
        { numRuns: 200 },
      );
    });
  });
}

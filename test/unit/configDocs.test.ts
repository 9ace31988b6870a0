import { expect } from 'chai';
import { configDefaults } from '../../src/config.js';

/** scripts/configDocs.mjs (`npm run config:check`), loaded from the repository (this file runs from dist/test/unit). */
interface ConfigDocs {
  configDocsProblems(input: {
    defaults: Record<string, string | undefined>;
    page: string;
    otherPages?: { path: string; text: string }[];
    example: string;
    readsElsewhere?: Map<string, string[]>;
  }): string[];
  environmentReadsElsewhere(sources: { path: string; text: string }[]): Map<string, string[]>;
  repositoryProblems(defaults: Record<string, string | undefined>): { problems: string[]; otherPages: string[] };
}
const script = async (): Promise<ConfigDocs> => (await import(new URL('../../../scripts/configDocs.mjs', import.meta.url).href)) as ConfigDocs;

const page = (...rows: string[]) => ['# Configuration', '', '| variable | default | meaning |', '|---|---|---|', ...rows, '', 'After the table.', ''].join('\n');
const defaults = { PORT: '3000', HOST: '127.0.0.1', BASE_PATH: undefined, TLS_CERT_FILE: undefined, TLS_KEY_FILE: undefined };
const goodPage = page(
  '| `PORT` | 3000 | HTTP port |',
  '| `HOST` | `127.0.0.1` | the address to listen on |',
  '| `BASE_PATH` | empty | prefix of every route |',
  '| `TLS_CERT_FILE`, `TLS_KEY_FILE` | unset | set both → HTTPS |',
);
const goodExample = ['# HTTP port.', 'PORT=3000', 'HOST=127.0.0.1', '# BASE_PATH=/api/external', '# TLS_CERT_FILE=/etc/cert.pem', '# TLS_KEY_FILE=/etc/key.pem', ''].join('\n');

describe('npm run config:check (scripts/configDocs.mjs)', () => {
  it('finds nothing when the page, the other pages and .env.example match the code', async () => {
    const { configDocsProblems } = await script();
    const other = { path: 'docs/other.md', text: page('| `PORT` | `3000` (any free one with 0) | the port |') };
    expect(configDocsProblems({ defaults, page: goodPage, otherPages: [other], example: goodExample })).to.deep.equal([]);
  });

  it('names each variable missing from the page, each it documents that the code no longer reads, each default that differs', async () => {
    const { configDocsProblems } = await script();
    const broken = page(
      '| `PORT` | 3001 | HTTP port |',
      '| `HOST` | unset | the address to listen on |',
      '| `TLS_CERT_FILE` | unset | the certificate |',
      '| `OLD_SETTING` | `on` | gone from the code |',
      '| `PORT` | 3000 | again |',
      '| `TLS_KEY_FILE` | unset | |',
    );
    expect(configDocsProblems({ defaults, page: broken, example: goodExample })).to.deep.equal([
      'docs/operators/configuration.md:5: PORT\'s default is "3001", the code\'s is "3000"',
      'docs/operators/configuration.md:6: HOST\'s default is unset, the code\'s is "127.0.0.1"',
      'docs/operators/configuration.md:8: OLD_SETTING is documented, but src/config.ts no longer reads it',
      'docs/operators/configuration.md:9: PORT is documented twice',
      'docs/operators/configuration.md:10: TLS_KEY_FILE has no meaning',
      'docs/operators/configuration.md: BASE_PATH is missing (default unset)',
    ]);
  });

  it('checks the tables of variables of other pages: names the code reads, and its defaults', async () => {
    const { configDocsProblems } = await script();
    const other = { path: 'docs/platform/other.md', text: page('| `HOST` | `0.0.0.0` | where |', '| `GONE_TOO` | 1 | no longer read |') };
    expect(configDocsProblems({ defaults, page: goodPage, otherPages: [other], example: goodExample })).to.deep.equal([
      'docs/platform/other.md:5: HOST\'s default is "0.0.0.0", the code\'s is "127.0.0.1"',
      'docs/platform/other.md:6: GONE_TOO is documented, but src/config.ts does not read it',
    ]);
  });

  it('checks .env.example: every variable listed once, none the code does not read, a set value is the default', async () => {
    const { configDocsProblems } = await script();
    const example = ['PORT=8080', '# HOST=0.0.0.0', '# BASE_PATH=/api', '# BASE_PATH=/api/v2', 'RETIRED=1', '# TLS_CERT_FILE=/etc/cert.pem', ''].join('\n');
    expect(configDocsProblems({ defaults, page: goodPage, example })).to.deep.equal([
      '.env.example: PORT=8080 is not the default ("3000"); comment it out if it is an example',
      '.env.example: BASE_PATH is listed twice',
      '.env.example: RETIRED is listed, but src/config.ts does not read it',
      '.env.example: TLS_KEY_FILE is missing (default unset)',
    ]);
  });

  it('finds the variables code reads outside src/config.ts, and asks the page to name them', async () => {
    const { configDocsProblems, environmentReadsElsewhere } = await script();
    const reads = environmentReadsElsewhere([
      { path: 'src/config.ts', text: 'const given = env[name]; env.PORT;' },
      { path: 'src/a.ts', text: "if (process.env.TUNING_KNOB) run(); const role = env[ROLE_ENV];" },
      { path: 'src/b.ts', text: "export const ROLE_ENV = 'CHRONICLE_ROLE'; env['PORT']; context.env.npm_lifecycle_event;" },
    ]);
    expect([...reads]).to.deep.equal([
      ['TUNING_KNOB', ['src/a.ts']],
      ['npm_lifecycle_event', ['src/b.ts']],
      ['PORT', ['src/b.ts']],
      ['CHRONICLE_ROLE', ['src/b.ts']],
    ]);
    const named = `${goodPage}\n\`npm_lifecycle_event\` is set by npm.\n`;
    expect(configDocsProblems({ defaults, page: named, example: goodExample, readsElsewhere: reads })).to.deep.equal([
      'docs/operators/configuration.md: TUNING_KNOB is read from the environment (src/a.ts) but not named on the page',
      'docs/operators/configuration.md: CHRONICLE_ROLE is read from the environment (src/b.ts) but not named on the page',
    ]);
  });

  it('finds the repository’s own configuration page, other pages and .env.example in step with src/config.ts', async () => {
    const { repositoryProblems } = await script();
    const { problems, otherPages } = repositoryProblems(configDefaults);
    expect(problems).to.deep.equal([]);
    expect(otherPages).to.include('docs/operators/postgresql.md');
  });
});

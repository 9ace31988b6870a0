import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../support/tempStore.js';

/** The project's root (this file runs from dist/test/unit/architecture). */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
const config = join(root, '.dependency-cruiser.cjs');

/** Runs the layer check (the second half of `npm run lint`) on `dir`'s src/ and projections/. */
const checkLayers = (dir: string) => {
  const run = spawnSync(depcruise, ['src', 'projections', '--config', config, '--output-type', 'err'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
};

/** A tiny tree shaped like the project's: every file given by path, with its source. */
const made: (() => void)[] = [];
const treeOf = (files: Record<string, string>): string => {
  const { path: dir, dispose } = tempDir('layers-');
  made.push(dispose);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
};

describe('the layer rules (npm run lint)', function () {
  this.timeout(60_000);
  after(() => made.forEach((dispose) => dispose()));

  it('pass on the project itself', () => {
    const { status, output } = checkLayers(root);
    expect(output).to.match(/no dependency violations found/);
    expect(status).to.equal(0);
  });

  it('fail when a domain file imports an adapter, naming the rule', () => {
    const dir = treeOf({
      'src/adapters/sqlite/SqliteThing.ts': 'export const thing = 1;\n',
      'src/domain/contacts/contactDecider.ts': "import { thing } from '../../adapters/sqlite/SqliteThing.js';\nexport const x = thing;\n",
      'src/main.ts': "import { thing } from './adapters/sqlite/SqliteThing.js';\nexport const y = thing;\n",
      'projections/index.ts': 'export const z = 1;\n',
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/domain-is-pure: src\/domain\/contacts\/contactDecider\.ts → src\/adapters\/sqlite\/SqliteThing\.ts/);
    expect(output).to.match(/only-startup-picks-adapters/);
  });

  it('fail on an import cycle between files and between folders', () => {
    const dir = treeOf({
      'src/application/a/first.ts': "import { second } from '../b/second.js';\nexport const first = (): number => second() + 1;\n",
      'src/application/b/second.ts': "import { first } from '../a/first.js';\nexport const second = (): number => (first ? 1 : 0);\n",
      'projections/index.ts': 'export const z = 1;\n',
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/no-file-cycles/);
    expect(output).to.match(/no-folder-cycles/);
  });

  it('fail when the application imports the HTTP layer or a projection', () => {
    const dir = treeOf({
      'src/http/AuthContext.ts': 'export interface AuthContext { readonly keyId: string }\n',
      'projections/apiKeys/apiKeysProjection.ts': 'export const apiKeysProjection = 1;\n',
      'src/application/apiKeys/verifyApiKey.ts':
        "import type { AuthContext } from '../../http/AuthContext.js';\nimport { apiKeysProjection } from '../../../src/features/apiKeys/readModels/apiKeysProjection.js';\nexport const v = (a: AuthContext): unknown => [a, apiKeysProjection];\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/application-stays-inside: src\/application\/apiKeys\/verifyApiKey\.ts → src\/http\/AuthContext\.ts/);
    expect(output).to.match(/application-stays-inside: src\/application\/apiKeys\/verifyApiKey\.ts → projections\/apiKeys\/apiKeysProjection\.ts/);
  });

  it('fail when the console imports an adapter or the start-up, or the API imports the console', () => {
    const dir = treeOf({
      'src/adapters/sqlite/SqliteConsoleSessionStore.ts': 'export const store = 1;\n',
      'src/startup/adapters.ts': "import { store } from '../adapters/sqlite/SqliteConsoleSessionStore.js';\nexport const stores = store;\n",
      'src/console/routes/keyRoutes.ts':
        "import { store } from '../../adapters/sqlite/SqliteConsoleSessionStore.js';\nimport { stores } from '../../startup/adapters.js';\nexport const keys = [store, stores];\n",
      'src/http/routes/keys.ts': "import { keys } from '../../console/routes/keyRoutes.js';\nexport const routes = keys;\n",
      'projections/index.ts': 'export const z = 1;\n',
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/console-calls-the-application: src\/console\/routes\/keyRoutes\.ts → src\/adapters\/sqlite\/SqliteConsoleSessionStore\.ts/);
    expect(output).to.match(/console-calls-the-application: src\/console\/routes\/keyRoutes\.ts → src\/startup\/adapters\.ts/);
    expect(output).to.match(/http-never-imports-an-adapter: src\/http\/routes\/keys\.ts → src\/console\/routes\/keyRoutes\.ts/);
  });
});

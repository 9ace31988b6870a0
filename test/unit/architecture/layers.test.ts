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

/** Runs the layer check (the second half of `npm run lint`) on `dir`'s src/. */
const checkLayers = (dir: string) => {
  const run = spawnSync(depcruise, ['src', '--config', config, '--output-type', 'err'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
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

  it("fail when a feature's domain imports an adapter, naming the rule", () => {
    const dir = treeOf({
      'src/adapters/sqlite/SqliteThing.ts': 'export const thing = 1;\n',
      'src/features/notes/domain/noteDecider.ts': "import { thing } from '../../../adapters/sqlite/SqliteThing.js';\nexport const x = thing;\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/feature-domain-is-pure: src\/features\/notes\/domain\/noteDecider\.ts → src\/adapters\/sqlite\/SqliteThing\.ts/);
    expect(output).to.match(/only-startup-picks-adapters/);
    expect(output).to.match(/features-never-start/);
  });

  it('fail on an import cycle between files and between folders', () => {
    const dir = treeOf({
      'src/application/a/first.ts': "import { second } from '../b/second.js';\nexport const first = (): number => second() + 1;\n",
      'src/application/b/second.ts': "import { first } from '../a/first.js';\nexport const second = (): number => (first ? 1 : 0);\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/no-file-cycles/);
    expect(output).to.match(/no-folder-cycles/);
  });

  it('fail when the machinery imports a feature, or the application a way in', () => {
    const dir = treeOf({
      'src/http/AuthContext.ts': 'export interface AuthContext { readonly keyId: string }\n',
      'src/features/notes/readModels/notesProjection.ts': 'export const notesProjection = 1;\n',
      'src/application/verify/check.ts':
        "import type { AuthContext } from '../../http/AuthContext.js';\nimport { notesProjection } from '../../features/notes/readModels/notesProjection.js';\nexport const v = (a: AuthContext): unknown => [a, notesProjection];\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/application-stays-inside: src\/application\/verify\/check\.ts → src\/http\/AuthContext\.ts/);
    expect(output).to.match(/machinery-never-imports-a-feature: src\/application\/verify\/check\.ts → src\/features\/notes\/readModels\/notesProjection\.ts/);
  });

  it("fail when a feature reaches into another's modules or reads the registry; through its index it may", () => {
    const dir = treeOf({
      'src/features/notes/domain/noteEvents.ts': 'export const NoteAdded = 1;\n',
      'src/features/notes/index.ts': "export { NoteAdded } from './domain/noteEvents.js';\n",
      'src/features/index.ts': "import { NoteAdded } from './notes/index.js';\nexport const FEATURES = [NoteAdded];\n",
      'src/features/tasks/readModels/tasksProjection.ts':
        "import { NoteAdded } from '../../notes/domain/noteEvents.js';\nimport { FEATURES } from '../../index.js';\nexport const t = [NoteAdded, FEATURES];\n",
      'src/features/tasks/application/addTask.ts': "import { NoteAdded } from '../../notes/index.js';\nexport const a = NoteAdded;\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/features-meet-through-their-index: src\/features\/tasks\/readModels\/tasksProjection\.ts → src\/features\/notes\/domain\/noteEvents\.ts/);
    expect(output).to.match(/only-startup-and-cli-read-the-registry: src\/features\/tasks\/readModels\/tasksProjection\.ts → src\/features\/index\.ts/);
    expect(output).not.to.contain('src/features/tasks/application/addTask.ts');
  });

  it("fail when a feature's writes import its ways in or its read models", () => {
    const dir = treeOf({
      'src/features/notes/api/noteRoutes.ts': 'export const routes = 1;\n',
      'src/features/notes/readModels/notesProjection.ts': "import { routes } from '../api/noteRoutes.js';\nexport const p = routes;\n",
      'src/features/notes/application/addNote.ts': "import { p } from '../readModels/notesProjection.js';\nexport const add = p;\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/feature-writes-below-its-ways-in: src\/features\/notes\/readModels\/notesProjection\.ts → src\/features\/notes\/api\/noteRoutes\.ts/);
    expect(output).to.match(/feature-writes-decide-on-the-log: src\/features\/notes\/application\/addNote\.ts → src\/features\/notes\/readModels\/notesProjection\.ts/);
  });

  it('fail when the start-up or the CLI reach past a feature\'s index', () => {
    const dir = treeOf({
      'src/features/notes/application/addNote.ts': 'export const add = 1;\n',
      'src/features/notes/index.ts': "export { add } from './application/addNote.js';\n",
      'src/cli/commands/notes.ts': "import { add } from '../../features/notes/application/addNote.js';\nexport const cmd = add;\n",
      'src/startup/notes.ts': "import { add } from '../features/notes/index.js';\nexport const wired = add;\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/startup-and-cli-meet-features-through-their-index: src\/cli\/commands\/notes\.ts → src\/features\/notes\/application\/addNote\.ts/);
    expect(output).not.to.contain('src/startup/notes.ts →');
  });

  it("fail when a feature's console pages import its domain or its read models instead of its application", () => {
    const dir = treeOf({
      'src/features/notes/domain/noteTitle.ts': 'export const title = 1;\n',
      'src/features/notes/readModels/notesProjection.ts': 'export const p = 1;\n',
      'src/features/notes/application/noteQueries.ts': 'export const q = 1;\n',
      'src/features/notes/console/notesPage.ts':
        "import { title } from '../domain/noteTitle.js';\nimport { p } from '../readModels/notesProjection.js';\nimport { q } from '../application/noteQueries.js';\nexport const page = title + p + q;\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/console-pages-call-the-application: src\/features\/notes\/console\/notesPage\.ts → src\/features\/notes\/domain\/noteTitle\.ts/);
    expect(output).to.match(/console-pages-call-the-application: src\/features\/notes\/console\/notesPage\.ts → src\/features\/notes\/readModels\/notesProjection\.ts/);
    expect(output).not.to.contain('notesPage.ts → src/features/notes/application/noteQueries.ts');
  });

  it("fail when the console's kernel imports an adapter or the start-up, the API the console, or an engine another engine", () => {
    const dir = treeOf({
      'src/adapters/sqlite/SqliteConsoleSessionStore.ts': 'export const store = 1;\n',
      'src/adapters/postgres/PostgresThing.ts': "import { store } from '../sqlite/SqliteConsoleSessionStore.js';\nexport const thing = store;\n",
      'src/startup/adapters.ts': "import { store } from '../adapters/sqlite/SqliteConsoleSessionStore.js';\nexport const stores = store;\n",
      'src/console/session/requireSession.ts':
        "import { store } from '../../adapters/sqlite/SqliteConsoleSessionStore.js';\nimport { stores } from '../../startup/adapters.js';\nexport const keys = [store, stores];\n",
      'src/http/routes/keys.ts': "import { keys } from '../../console/session/requireSession.js';\nexport const routes = keys;\n",
    });
    const { status, output } = checkLayers(dir);
    expect(status).to.not.equal(0);
    expect(output).to.match(/console-kernel-below-the-pages: src\/console\/session\/requireSession\.ts → src\/adapters\/sqlite\/SqliteConsoleSessionStore\.ts/);
    expect(output).to.match(/console-kernel-below-the-pages: src\/console\/session\/requireSession\.ts → src\/startup\/adapters\.ts/);
    expect(output).to.match(/http-never-imports-an-adapter: src\/http\/routes\/keys\.ts → src\/console\/session\/requireSession\.ts/);
    expect(output).to.match(/engines-apart: src\/adapters\/postgres\/PostgresThing\.ts → src\/adapters\/sqlite\/SqliteConsoleSessionStore\.ts/);
  });
});

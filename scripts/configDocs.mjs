// npm run config:check: the configuration's documentation against the code. src/config.ts declares every
// environment variable with its default (read from the build: dist/src/config.js, so `npm run build` first);
// `node scripts/configDocs.mjs --check` (what CI runs) exits 1, naming each problem, when
// - docs/operators/configuration.md's table misses a variable, names one the code no longer reads, or gives
//   a default other than the code's;
// - another page's table of variables (a `| variable | default | meaning |` header, under docs/) names a
//   variable the code does not read, or gives another default;
// - .env.example misses a variable, names one the code does not read, or sets one (uncommented) to a value
//   other than its default;
// - code under src/ reads a variable of the environment outside src/config.ts (process.env.NAME, env.NAME,
//   env['NAME'], or a `…_ENV = 'NAME'` constant) that configuration.md does not name.
// Without --check it prints the code's variables and defaults. The functions below take text, not files, so
// that test/unit/configDocs.test.ts runs them on small broken samples.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PAGE = 'docs/operators/configuration.md';
export const EXAMPLE = '.env.example';

const VARIABLE_NAME = /^[A-Z][A-Z0-9_]*$/;
/** A default cell that means "no default". */
const UNSET = new Set(['unset', 'empty']);

/** The cells of a markdown table row (`\|` inside a cell is not a separator). */
const cellsOf = (line) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** What a default cell says: its first code span, else its first word; undefined for `unset` or `empty`. */
const defaultOf = (cell) => {
  const code = /^`([^`]*)`/.exec(cell);
  const value = code ? code[1] : cell.split(/\s+/)[0];
  return UNSET.has(value) ? undefined : value;
};

/**
 * The rows of every `| variable | default | meaning |` table of a markdown page: for each variable named in a
 * row's first cell (in backticks; several may share a row), its default (undefined: unset) and its meaning.
 */
export const documentedVariables = (markdown) => {
  const rows = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const header = cellsOf(lines[i]).map((cell) => cell.toLowerCase());
    if (!lines[i].trim().startsWith('|') || header.join('|') !== 'variable|default|meaning') continue;
    for (i += 2; i < lines.length && lines[i].trim().startsWith('|'); i += 1) {
      const [names = '', cell = '', meaning = ''] = cellsOf(lines[i]);
      const named = [...names.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((name) => VARIABLE_NAME.test(name));
      for (const name of named) rows.push({ name, default: defaultOf(cell), meaning, line: i + 1 });
    }
  }
  return rows;
};

/** The variables `.env.example` names, commented out (`# NAME=…`, an example) or set (`NAME=…`, the default). */
export const exampleVariables = (text) =>
  [...text.matchAll(/^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => ({ name: m[2], set: m[1] === undefined, value: m[3].trim() }));

/**
 * The variables `sources` ({path, text}, under src/) read from the environment outside src/config.ts:
 * `process.env.NAME`, `env.NAME`, `env['NAME']`, and constants such as `SUPERVISED_ENV = 'NAME'` (read
 * as `env[SUPERVISED_ENV]`). A map from each name to the files reading it.
 */
export const environmentReadsElsewhere = (sources) => {
  const reads = new Map();
  for (const { path, text } of sources) {
    if (path === 'src/config.ts') continue;
    const names = [
      ...[...text.matchAll(/\benv\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]),
      ...[...text.matchAll(/\benv\[\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*\]/g)].map((m) => m[1]),
      ...[...text.matchAll(/\b[A-Z][A-Z0-9_]*_ENV\s*=\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]/g)].map((m) => m[1]),
    ];
    for (const name of names) reads.set(name, [...new Set([...(reads.get(name) ?? []), path])]);
  }
  return reads;
};

const shown = (value) => (value === undefined ? 'unset' : JSON.stringify(value));

/**
 * Every way the documentation differs from the code, one line each (none: they match).
 * `defaults`: each variable src/config.ts reads and its default (undefined: unset); `page`: the text of
 * configuration.md; `otherPages`: [{path, text}] of other pages with tables of variables; `example`: the text
 * of .env.example; `readsElsewhere`: what environmentReadsElsewhere found.
 */
export const configDocsProblems = ({ defaults, page, otherPages = [], example, readsElsewhere = new Map() }) => {
  const problems = [];
  const code = new Map(Object.entries(defaults));

  const documented = documentedVariables(page);
  const seen = new Set();
  for (const row of documented) {
    const where = `${PAGE}:${row.line}`;
    if (seen.has(row.name)) problems.push(`${where}: ${row.name} is documented twice`);
    seen.add(row.name);
    if (!code.has(row.name)) {
      problems.push(`${where}: ${row.name} is documented, but src/config.ts no longer reads it`);
      continue;
    }
    if (row.default !== code.get(row.name)) {
      problems.push(`${where}: ${row.name}'s default is ${shown(row.default)}, the code's is ${shown(code.get(row.name))}`);
    }
    if (row.meaning === '') problems.push(`${where}: ${row.name} has no meaning`);
  }
  for (const name of code.keys()) {
    if (!seen.has(name)) problems.push(`${PAGE}: ${name} is missing (default ${shown(code.get(name))})`);
  }

  for (const { path, text } of otherPages) {
    for (const row of documentedVariables(text)) {
      const where = `${path}:${row.line}`;
      if (!code.has(row.name)) problems.push(`${where}: ${row.name} is documented, but src/config.ts does not read it`);
      else if (row.default !== code.get(row.name)) {
        problems.push(`${where}: ${row.name}'s default is ${shown(row.default)}, the code's is ${shown(code.get(row.name))}`);
      }
    }
  }

  const listed = exampleVariables(example);
  const inExample = new Set();
  for (const { name, set, value } of listed) {
    if (inExample.has(name)) problems.push(`${EXAMPLE}: ${name} is listed twice`);
    inExample.add(name);
    if (!code.has(name)) problems.push(`${EXAMPLE}: ${name} is listed, but src/config.ts does not read it`);
    else if (set && value !== code.get(name)) {
      problems.push(`${EXAMPLE}: ${name}=${value} is not the default (${shown(code.get(name))}); comment it out if it is an example`);
    }
  }
  for (const name of code.keys()) {
    if (!inExample.has(name)) problems.push(`${EXAMPLE}: ${name} is missing (default ${shown(code.get(name))})`);
  }

  const named = new Set([...page.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((m) => m[1]));
  for (const [name, paths] of readsElsewhere) {
    if (!code.has(name) && !named.has(name)) {
      problems.push(`${PAGE}: ${name} is read from the environment (${paths.join(', ')}) but not named on the page`);
    }
  }
  return problems;
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path) => readFileSync(join(root, path), 'utf8');
const posix = (path) => path.split(sep).join('/');
const filesUnder = (folder, extension) =>
  readdirSync(join(root, folder), { recursive: true })
    .map((path) => posix(join(folder, String(path))))
    .filter((path) => path.endsWith(extension))
    .sort();

/** configDocsProblems on the repository's own files, for `defaults` (the built src/config.ts's configDefaults). */
export const repositoryProblems = (defaults) => {
  const otherPages = filesUnder('docs', '.md')
    .filter((path) => path !== PAGE)
    .map((path) => ({ path, text: read(path) }))
    .filter(({ text }) => documentedVariables(text).length > 0);
  const sources = filesUnder('src', '.ts').map((path) => ({ path, text: read(path) }));
  const problems = configDocsProblems({
    defaults,
    page: read(PAGE),
    otherPages,
    example: read(EXAMPLE),
    readsElsewhere: environmentReadsElsewhere(sources),
  });
  return { problems, otherPages: otherPages.map(({ path }) => path) };
};

const main = async () => {
  const built = join(root, 'dist', 'src', 'config.js');
  if (!existsSync(built)) {
    console.error(`config: ${posix(relative(root, built))} is missing; run \`npm run build\` first`);
    process.exit(1);
  }
  const { configDefaults } = await import(pathToFileURL(built).href);
  if (!process.argv.includes('--check')) {
    for (const [name, value] of Object.entries(configDefaults)) console.log(`${name}=${value ?? ''}`);
    return;
  }
  const { problems, otherPages } = repositoryProblems(configDefaults);
  if (problems.length > 0) {
    for (const problem of problems) console.error(`config: ${problem}`);
    console.error(`config: ${problems.length} problem(s): the documentation differs from src/config.ts`);
    process.exit(1);
  }
  const count = Object.keys(configDefaults).length;
  console.log(`config: ${PAGE}, ${EXAMPLE} and the tables of ${otherPages.join(', ')} match src/config.ts (${count} variables)`);
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

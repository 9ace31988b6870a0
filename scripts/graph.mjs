// npm run graph: the layers of Chronicle as dependency-cruiser finds them in the code (the folders of src/,
// each adapter and each feature on its own), drawn as a mermaid flowchart into
// docs/contributors/layers.md. `npm run graph -- --check` (and `npm run graph:check`, which CI runs)
// writes nothing and exits 1 when the committed page differs from what the code gives now.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = join(root, 'docs', 'contributors', 'layers.md');
const pageName = 'docs/contributors/layers.md';

/** One node per adapter, per feature, per other folder of src/, per file at the root of src/ and of src/features/. */
const COLLAPSE = '^(src/adapters/[^/]+|src/features/[^/]+|src/[^/]+)(/|$)';

/** The folder-level import graph, as dependency-cruiser computes it with the project's own configuration. */
const foldersGraph = async () => {
  process.chdir(root);
  const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
  const tsConfig = extractTSConfig('./tsconfig.json');
  const result = await cruise(
    ['src'],
    { ...options, outputType: 'json', collapse: COLLAPSE, includeOnly: '^src/' },
    {},
    { tsConfig },
  );
  const output = typeof result.output === 'string' ? JSON.parse(result.output) : result.output;
  return output.modules;
};

const nameOf = (source) => source.replace(/\/$/, '');
const idOf = (name) => name.replace(/[^A-Za-z0-9]/g, '_');

/** The page: what it shows and how it is made, then the flowchart (nodes and edges sorted, so it is stable). */
const render = (modules) => {
  const names = modules.map((m) => nameOf(m.source)).sort();
  const edges = modules
    .flatMap((m) => m.dependencies.map((d) => [nameOf(m.source), nameOf(d.resolved)]))
    .filter(([from, to]) => from !== to)
    .sort(([a1, b1], [a2, b2]) => a1.localeCompare(a2) || b1.localeCompare(b2));
  const unique = [...new Map(edges.map((edge) => [edge.join(' '), edge])).values()];
  return [
    '# The layers, drawn from the code',
    '',
    '<!-- Written by `npm run graph` from the import graph; do not edit by hand. -->',
    '',
    'Each box is a folder of `src/` (each adapter and each feature on its own), or a file at the root of',
    '`src/` or of `src/features/`; an arrow from A to B means that code in A imports code in B (type-only imports',
    'included). `npm run graph` redraws this page with dependency-cruiser from the code, and CI runs',
    '`npm run graph:check`, which fails when the page differs from the code. The rules the layers',
    'follow are in [the architecture](architecture.md#layers-and-the-rule-that-holds-them).',
    '',
    '```mermaid',
    'flowchart TD',
    ...names.map((name) => `  ${idOf(name)}["${name}"]`),
    ...unique.map(([from, to]) => `  ${idOf(from)} --> ${idOf(to)}`),
    '```',
    '',
  ].join('\n');
};

const text = render(await foldersGraph());
if (process.argv.includes('--check')) {
  if (!existsSync(page) || readFileSync(page, 'utf8') !== text) {
    console.error(`graph: ${pageName} differs from the code's layers; run \`npm run graph\` and commit the result`);
    process.exit(1);
  }
  console.log(`graph: ${pageName} matches the code`);
} else {
  writeFileSync(page, text);
  console.log(`graph: wrote ${pageName}`);
}

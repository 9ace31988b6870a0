import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommanderError, type Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { adminDocument, apiDocument } from '../../src/features/index.js';
import { renderConsolePages } from './consolePages.js';

/**
 * Snapshots of what users see (test/fixtures/snapshots/): both OpenAPI documents,
 * every CLI command's `--help`, and every console page. Committed, so that a
 * change of any of them shows in review; `test/http/behaviourSnapshots.test.ts`
 * fails when the code no longer gives them, `npm run snapshots:update` rewrites
 * them.
 */
export const SNAPSHOTS_DIR = fileURLToPath(new URL('../../../test/fixtures/snapshots/', import.meta.url));

/** The command that rewrites the snapshots from the code. */
export const UPDATE_SNAPSHOTS = 'npm run snapshots:update';

/** The width `--help` is wrapped to (a terminal's would change it from one machine to the next). */
export const HELP_WIDTH = 100;

/** The OpenAPI documents as the server serves them (`GET /openapi.json`, `GET /admin/openapi.json`) with no BASE_PATH. */
export const openApiSnapshots = (): Map<string, string> =>
  new Map([
    ['openapi.json', `${JSON.stringify(apiDocument(''), null, 2)}\n`],
    ['admin-openapi.json', `${JSON.stringify(adminDocument(''), null, 2)}\n`],
  ]);

/** The program as `bin/chronicle.js` builds it, printing into `lines`, its help wrapped at HELP_WIDTH without colours. */
const programPrintingTo = (lines: string[]): Command => {
  const program = buildProgram({ out: (line) => lines.push(line), err: (line) => lines.push(line), env: {} });
  const fix = (command: Command): void => {
    command.configureOutput({
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });
    command.commands.forEach(fix);
  };
  fix(program);
  return program;
};

/** Every command's path under the program (`[]` is the program itself), depth first in the order they were added. */
const commandPaths = (command: Command, path: readonly string[] = []): string[][] => [
  [...path],
  ...command.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()])),
];

/** What `chronicle <path> --help` prints, run in this process. */
const helpOf = async (path: readonly string[]): Promise<string> => {
  const lines: string[] = [];
  try {
    await programPrintingTo(lines).parseAsync([...path, '--help'], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError) || error.code !== 'commander.helpDisplayed') throw error;
  }
  return `${lines.join('\n')}\n`;
};

/** Every command's `--help`, the program's first, each after a header line naming it, found by walking the program's commands. */
export const cliHelpSnapshot = async (): Promise<string> => {
  const sections: string[] = [];
  for (const path of commandPaths(programPrintingTo([]))) {
    sections.push(`======== chronicle ${[...path, '--help'].join(' ')}\n${await helpOf(path)}`);
  }
  return sections.join('\n');
};

/** Every snapshot the code gives now, by its path under SNAPSHOTS_DIR (`/`-separated). */
export const currentSnapshots = async (): Promise<Map<string, string>> => {
  const snapshots = new Map(openApiSnapshots());
  snapshots.set('cli-help.txt', await cliHelpSnapshot());
  for (const [name, page] of await renderConsolePages()) snapshots.set(`console/${name}.html`, page);
  return snapshots;
};

/** Every committed snapshot, by its path under SNAPSHOTS_DIR (`/`-separated). */
export const committedSnapshots = (): Map<string, string> => {
  const files = readdirSync(SNAPSHOTS_DIR, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return new Map(
    files
      .map((entry) => join(entry.parentPath, entry.name))
      .sort()
      .map((file) => [relative(SNAPSHOTS_DIR, file).split(sep).join('/'), readFileSync(file, 'utf8')]),
  );
};

/** Rewrites SNAPSHOTS_DIR with the current snapshots (a snapshot the code no longer gives is removed). */
export const writeSnapshots = async (): Promise<readonly string[]> => {
  const snapshots = await currentSnapshots();
  rmSync(SNAPSHOTS_DIR, { recursive: true, force: true });
  for (const [path, text] of snapshots) {
    const file = join(SNAPSHOTS_DIR, ...path.split('/'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return [...snapshots.keys()];
};

/**
 * Where `actual` first differs from `expected`, by line, with the lines around
 * it: what a failure shows, rather than two whole documents.
 */
export const firstDifference = (expected: string, actual: string): string => {
  const want = expected.split('\n');
  const got = actual.split('\n');
  let line = 0;
  while (line < want.length && line < got.length && want[line] === got[line]) line += 1;
  const around = (lines: readonly string[], sign: string) =>
    lines
      .slice(Math.max(0, line - 2), line + 3)
      .map((text, i) => `${sign} ${String(Math.max(0, line - 2) + i + 1).padStart(5)} | ${text}`)
      .join('\n');
  return `first difference at line ${line + 1}:\n--- committed\n${around(want, '-')}\n+++ the code now\n${around(got, '+')}`;
};

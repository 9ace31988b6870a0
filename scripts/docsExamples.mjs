// npm run docs:examples: the documentation's examples, run as a reader would run them (CI runs it).
//
// 1. Shell blocks. A ```sh block right after the comment `<!-- docs:examples: run -->` is run; one after
//    `<!-- docs:examples: server -->` is the command that starts the server the page's run blocks talk to.
//    Each page with run blocks gets a server of its own (its server block, else `npm start`) on a free
//    port and an empty temporary DATA_DIR, then its run blocks, in the page's order, in ONE bash (so a
//    variable set in one block is there in the next), from the repository's root, with
//    `set -euo pipefail`. What stands in for what a reader does by hand:
//    - `localhost:3000` (the default PORT) is the free port the server was given, and the port `4000`
//      (the pages' local webhook receiver) another free one;
//    - API_KEY is the demo key the server printed at its first start (a reader copies it from there);
//    - DATA_DIR and PORT are the server's, as for a CLI command run beside it;
//    - every `curl` fails on an HTTP error status (`--fail-with-body`), so a request the API refuses
//      fails its block instead of printing an error body.
//    A page must be done within PAGE_TIMEOUT_MS (server start included); background processes a block
//    started (a receiver) are stopped at the end.
// 2. TypeScript blocks. Every ```ts / ```typescript block of README.md and docs/ is type-checked, each
//    as a module of its own, against the typed client (`@chronicle/client` is clients/typescript/src)
//    with the repository's TypeScript, strict. Errors are reported at the page's line.
//
// Exits 1, naming the page, the block's line and what failed, when any block fails. `--only sh|ts` runs
// one of the two; `--page <path>` only the shell blocks of that page; `--verbose` prints what the blocks printed. Needs the build (dist/) and the
// typed client's dependencies (`npm run docs:examples` installs those when missing).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PAGE_TIMEOUT_MS = Number(process.env.DOCS_EXAMPLES_TIMEOUT_MS ?? 240_000);
const SERVER_START_TIMEOUT_MS = 120_000;
const RUN = 'run';
const SERVER = 'server';

/** README.md and every page under docs/. */
const pages = () => {
  const found = ['README.md'];
  const walk = (folder) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found;
};

/**
 * The fenced code blocks of a markdown text: {lang, code, line (1-based, the fence's), mark}, where mark is
 * what a `<!-- docs:examples: … -->` comment right before it (blank lines between allowed) says, else null.
 */
export const codeBlocks = (markdown) => {
  const lines = markdown.split('\n');
  const blocks = [];
  let mark = null;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const comment = /^<!--\s*docs:examples:\s*([a-z]+)\s*-->\s*$/.exec(line.trim());
    if (comment) {
      mark = comment[1];
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([A-Za-z0-9_-]*)/.exec(line);
    if (fence) {
      const [, indent, ticks, lang] = fence;
      const code = [];
      let j = i + 1;
      while (j < lines.length && !lines[j].trimStart().startsWith(ticks)) {
        code.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
        j += 1;
      }
      blocks.push({ lang: lang.toLowerCase(), code: code.join('\n'), line: i + 1, mark });
      mark = null;
      i = j;
      continue;
    }
    if (line.trim() !== '') mark = null;
  }
  return blocks;
};

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** A block's text with the ports a reader uses replaced by the ones this run was given. */
export const withPorts = (code, serverPort, receiverPort) =>
  code.replaceAll('localhost:3000', `localhost:${serverPort}`).replace(/\b4000\b/g, String(receiverPort));

/** Runs `script` in bash, in a process group of its own; resolves {code, output}, killing the group at the end. */
const runBash = (script, env, timeoutMs, { background = false, onOutput } = {}) => {
  const child = spawn('bash', ['-c', script], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const take = (chunk) => {
    output += chunk;
    onOutput?.(output);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const done = new Promise((resolve) => {
    const timer = background ? null : setTimeout(() => {
      output += `\n(docs:examples: stopped after ${timeoutMs} ms)\n`;
      killGroup('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (!background) killGroup('SIGKILL');
      resolve({ code: code ?? (signal ? 1 : 0), output });
    });
  });
  return { child, done, killGroup, output: () => output };
};

/** Runs the shell blocks of one page against a server of its own; resolves a list of failures. */
const runPage = async (page, blocks, verbose) => {
  const started = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'chronicle-docs-examples-'));
  const [serverPort, receiverPort] = [await freePort(), await freePort()];
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(serverPort) };
  for (const name of ['POSTGRES_URL', 'EVENTSTORE_URL', 'MONGODB_URL', 'BASE_PATH', 'API_WORKERS', 'npm_lifecycle_event']) delete env[name];
  const serverBlock = blocks.find((block) => block.mark === SERVER);
  const runBlocks = blocks.filter((block) => block.mark === RUN);
  const serverCommand = serverBlock ? withPorts(serverBlock.code, serverPort, receiverPort) : 'npm start';
  const failures = [];
  const server = runBash(serverCommand, env, 0, { background: true });
  try {
    const listening = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), SERVER_START_TIMEOUT_MS);
      const look = () => {
        if (/Chronicle is listening on/.test(server.output())) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      server.child.stdout.on('data', look);
      server.child.stderr.on('data', look);
      server.done.then(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!listening) {
      failures.push(`${page}${serverBlock ? `:${serverBlock.line}` : ''}: the server did not start\n${server.output()}`);
      return failures;
    }
    const apiKey = /API key (chr_\S+)/.exec(server.output())?.[1] ?? '';
    const script = [
      'set -euo pipefail',
      'curl() { command curl --fail-with-body "$@"; }',
      ...runBlocks.map((block) => [`printf '\\n::docs:examples %s\\n' '${page}:${block.line}'`, withPorts(block.code, serverPort, receiverPort)].join('\n')),
      "printf '\\n::docs:examples done\\n'",
    ].join('\n');
    const left = PAGE_TIMEOUT_MS - (Date.now() - started);
    const result = await runBash(script, { ...env, API_KEY: apiKey }, left).done;
    const marks = [...result.output.matchAll(/^::docs:examples (\S+)$/gm)].map((match) => match[1]);
    const last = marks.at(-1);
    if (result.code !== 0 || last !== 'done') {
      failures.push(`${last === 'done' || last === undefined ? page : last}: the block failed (exit ${result.code})\n${result.output}`);
    } else {
      if (verbose) console.log(result.output);
      console.log(`docs:examples: ${page}: ${runBlocks.length} shell blocks ran (${Date.now() - started} ms)`);
    }
  } finally {
    server.killGroup('SIGTERM');
    await Promise.race([server.done, new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
    server.killGroup('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
  return failures;
};

/** Type-checks every TypeScript block against the typed client; resolves a list of failures. */
const checkTypeScript = (all) => {
  const blocks = all.flatMap(({ page, blocks: found }) =>
    found.filter((block) => block.lang === 'ts' || block.lang === 'typescript').map((block) => ({ page, ...block })),
  );
  if (blocks.length === 0) return [];
  const folder = mkdtempSync(join(tmpdir(), 'chronicle-docs-ts-'));
  try {
    const files = blocks.map((block, index) => {
      const file = `block${index}.ts`;
      writeFileSync(join(folder, file), `${block.code}\nexport {};\n`);
      return file;
    });
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2023', 'DOM'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(root, 'node_modules', '@types')],
          paths: { '@chronicle/client': [join(root, 'clients', 'typescript', 'src', 'index.ts')] },
        },
        files,
      }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', join(folder, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8' });
    const output = `${result.stdout}${result.stderr}`;
    // block3.ts(12,5): error TS2304: … → the page's line.
    const failures = output
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const at = /^(?:.*[\\/])?block(\d+)\.ts\((\d+),(\d+)\): (.*)$/.exec(line);
        if (!at) return line;
        const block = blocks[Number(at[1])];
        return `${block.page}:${block.line + Number(at[2])}:${at[3]}: ${at[4]}`;
      });
    if (result.status !== 0 && failures.length === 0) failures.push(`tsc exited with ${result.status}`);
    if (failures.length === 0) console.log(`docs:examples: ${blocks.length} TypeScript blocks type-check against the typed client`);
    return failures;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
};

const main = async () => {
  const args = process.argv.slice(2);
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
  const onlyPage = args.includes('--page') ? args[args.indexOf('--page') + 1] : null;
  const all = pages().map((page) => ({ page, blocks: codeBlocks(readFileSync(join(root, page), 'utf8')) }));
  const failures = [];
  if (only !== 'sh') failures.push(...checkTypeScript(all));
  if (only !== 'ts') {
    for (const { page, blocks } of all) {
      if (onlyPage !== null && relative(root, join(root, onlyPage)) !== page) continue;
      const marked = blocks.filter((block) => block.mark !== null);
      for (const block of marked) {
        if (block.mark !== RUN && block.mark !== SERVER) failures.push(`${page}:${block.line}: unknown mark "${block.mark}" (run or server)`);
        else if (block.lang !== 'sh' && block.lang !== 'bash') failures.push(`${page}:${block.line}: a marked block must be sh or bash`);
      }
      if (marked.filter((block) => block.mark === SERVER).length > 1) failures.push(`${page}: more than one server block`);
      if (!marked.some((block) => block.mark === RUN)) continue;
      failures.push(...(await runPage(page, blocks, args.includes('--verbose'))));
    }
  }
  if (failures.length > 0) {
    for (const failure of failures) console.error(`docs:examples: ${failure}`);
    console.error(`docs:examples: ${failures.length} failed`);
    process.exit(1);
  }
  console.log('docs:examples: every example works');
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();

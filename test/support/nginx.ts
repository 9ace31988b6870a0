import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './tempStore.js';

/** Debian's nginx: the proxy tests run it, as an operator would, never a downloaded one. */
export const NGINX = '/usr/sbin/nginx';

export const nginxInstalled = (): boolean => existsSync(NGINX);

/** The committed test-only certificate for localhost / 127.0.0.1 (test/fixtures/tls/README.md). */
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/tls/', import.meta.url));
export const TEST_CERT = join(FIXTURES, 'cert.pem');
export const TEST_KEY = join(FIXTURES, 'key.pem');

/** The one ```nginx block of a markdown page, as it is written there. */
export const nginxSampleOf = (markdown: string): string => {
  const blocks = [...markdown.matchAll(/^```nginx\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  if (blocks.length !== 1) throw new Error(`expected one \`\`\`nginx block, found ${blocks.length}`);
  return blocks[0]!;
};

/** Replaces what `pattern` matches (it must match), with `replacement`. */
const substitute = (text: string, pattern: RegExp, replacement: string, what: string): string => {
  if (!pattern.test(text)) throw new Error(`the nginx sample has no ${what} to point at the test's own`);
  return text.replace(pattern, replacement);
};

export interface ForTheTest {
  /** Where nginx listens, on 127.0.0.1. */
  readonly port: number;
  /** The Chronicle under test, `host:port`. */
  readonly upstream: string;
}

/**
 * The sample with only what must differ on a test machine changed: its `listen`
 * port (on 127.0.0.1), its certificate and key (the test fixture's) and the
 * servers of its upstream (the Chronicle under test). Each must be there.
 */
export const sampleForTheTest = (sample: string, { port, upstream }: ForTheTest): string => {
  let conf = substitute(sample, /^(\s*)listen\s+(?:\S+:)?443\b/m, `$1listen 127.0.0.1:${port}`, '`listen 443`');
  conf = substitute(conf, /^(\s*)ssl_certificate\s+[^;]+;/m, `$1ssl_certificate ${TEST_CERT};`, '`ssl_certificate`');
  conf = substitute(conf, /^(\s*)ssl_certificate_key\s+[^;]+;/m, `$1ssl_certificate_key ${TEST_KEY};`, '`ssl_certificate_key`');
  const upstreamBlock = /(upstream\s+chronicle_api\s*\{)([^}]*)\}/;
  if (!upstreamBlock.test(conf)) throw new Error('the nginx sample has no `upstream chronicle_api { … }`');
  return conf.replace(upstreamBlock, (_all, head: string, body: string) => {
    const rest = body.replace(/^[ \t]*server\s+[^;]+;.*\n?/gm, '');
    if (rest === body) throw new Error('the nginx sample names no server in `upstream chronicle_api`');
    return `${head}\n  server ${upstream};${rest}}`;
  });
};

/** A running nginx and what it was given. */
export interface RunningNginx {
  /** The whole nginx.conf it runs. */
  readonly conf: string;
  /** Its error log so far. */
  readonly output: () => string;
  /** Stops it (SIGQUIT: it finishes its requests) and removes its folder. */
  readonly stop: () => Promise<void>;
}

/**
 * Runs `nginx -p <prefix> -c <prefix>/nginx.conf -g 'daemon off;'` from a
 * temporary folder: `http` (the sample, inside the minimum nginx needs: its pid,
 * logs and temporary files under the folder, no path of the system's) and
 * resolves once it accepts connections on `port`. As root, the workers run as
 * root too (`user root;`): the folder is only the test's.
 */
export const startNginx = async (http: string, port: number): Promise<RunningNginx> => {
  const dir = tempDir('chronicle-nginx-');
  const prefix = dir.path;
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(prefix, sub));
  const conf = [
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    `pid ${join(prefix, 'nginx.pid')};`,
    'error_log stderr warn;',
    'worker_processes 1;',
    'events { worker_connections 64; }',
    'http {',
    `  access_log ${join(prefix, 'access.log')};`,
    ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((sub) => `  ${sub === 'body' ? 'client_body' : sub}_temp_path ${join(prefix, sub)};`),
    http,
    '}',
    '',
  ].join('\n');
  const confPath = join(prefix, 'nginx.conf');
  writeFileSync(confPath, conf);
  const args = ['-p', prefix, '-e', 'stderr', '-c', confPath];
  const checked = spawnSync(NGINX, [...args, '-t'], { encoding: 'utf8' });
  if (checked.status !== 0) {
    dir.dispose();
    throw new Error(`nginx -t refused the configuration:\n${checked.stderr}\n${conf}`);
  }
  const child = spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const stop = async (): Promise<void> => {
    if (!gone) child.kill('SIGQUIT');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (!gone) child.kill('SIGKILL');
    await exited;
    dir.dispose();
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (gone || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not listen on 127.0.0.1:${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { conf, output: () => output, stop };
};

/** Whether something accepts a TCP connection on 127.0.0.1:port now. */
const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

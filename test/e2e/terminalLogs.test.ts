import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { CLI } from '../support/runCli.js';
import { freePort } from '../support/freePort.js';
import { tempDir } from '../support/tempStore.js';

/** The rule above and below the demo banner. */
const RULE = '='.repeat(78);
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

interface Started {
  readonly child: ChildProcess;
  /** Everything written so far: stdout and stderr apart (pipes), or the terminal's one stream. */
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<void>;
}

/** Waits (bounded) until `seen()` says the server listens; the output so far on failure. */
const listening = async (seen: () => string): Promise<void> => {
  const deadline = Date.now() + 60_000;
  while (!/Chronicle is listening on/.test(seen())) {
    if (Date.now() > deadline) throw new Error(`the server did not start:\n${seen()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const start = (command: string, args: readonly string[], env: NodeJS.ProcessEnv): Started => {
  const child = spawn(command, args, { cwd: tmpdir(), env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
};

/** The lines of the demo banner in `output`, from the blank line before its first rule to the blank line after its second. */
const banner = (lines: readonly string[]): readonly string[] => {
  const first = lines.indexOf(RULE);
  const second = lines.indexOf(RULE, first + 1);
  expect(first, 'a rule above the demo banner').to.be.greaterThan(0);
  expect(second, 'a rule below it').to.be.greaterThan(first);
  return lines.slice(first - 1, second + 2);
};

const expectBannerApart = (lines: readonly string[]): void => {
  const framed = banner(lines);
  expect(framed[0], 'a blank line before the banner').to.equal('');
  expect(framed.at(-1), 'a blank line after it').to.equal('');
  expect(framed[2]).to.match(/^Created a demo company and an API key .*\(shown only this once\):$/);
  expect(framed[3]).to.match(/^ {2}company Demo company \([0-9a-f-]{36}\)$/);
  expect(framed[4]).to.match(/^ {2}API key chr_[A-Za-z0-9]+$/);
  expect(framed[5]).to.match(/^ {2}try: curl -H "Authorization: Bearer chr_[A-Za-z0-9]+" http:\/\/localhost:\d+\/test$/);
  for (const line of framed) expect(line, 'no log line inside the banner').not.to.match(/^\{|INFO|WARN/);
};

/**
 * How `chronicle serve` writes on a terminal and elsewhere: log lines as JSON when
 * stdout is a pipe (what collectors and the tests read), readable lines when it is a
 * terminal (a pseudo-terminal from `script`), LOG_FORMAT overriding either; the demo
 * banner framed apart from them in both.
 */
describe('log lines on a terminal and elsewhere, and the demo banner (chronicle serve)', function () {
  this.timeout(120_000);
  const dirs: { dispose(): void }[] = [];
  after(() => dirs.forEach((dir) => dir.dispose()));

  const fresh = async () => {
    const dir = tempDir();
    dirs.push(dir);
    return { DATA_DIR: dir.path, PORT: String(await freePort()), LOG_LEVEL: 'info' };
  };

  it('writes one JSON object a line when stdout is not a terminal, the banner framed on stderr', async () => {
    const env = await fresh();
    const server = start(process.execPath, [CLI, 'serve'], env);
    try {
      await listening(server.stderr);
      const health = await fetch(`http://127.0.0.1:${env.PORT}/health`);
      expect(health.status).to.equal(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const lines = server.stdout().split('\n').filter((line) => line !== '');
    expect(lines.length).to.be.greaterThan(3);
    for (const line of lines) {
      const entry = JSON.parse(line) as { level?: unknown; time?: unknown; msg?: unknown };
      expect(entry.level, line).to.be.a('number');
      expect(entry.time, line).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(entry.msg, line).to.be.a('string');
    }
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).to.include('API listening');
    expect(server.stdout(), 'the key is said on stderr only').not.to.match(/chr_/);
    expectBannerApart(server.stderr().split('\n'));
  });

  it('writes readable lines on a terminal: time, level, message, fields; the banner apart from them', async () => {
    const env = await fresh();
    // `script` gives the command a pseudo-terminal: stdout and stderr both reach it, as in a shell.
    const server = start('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} serve`, '/dev/null'], env);
    try {
      await listening(server.stdout);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const raw = server.stdout().replaceAll('\r', '');
    expect(raw, 'the level names are coloured on a terminal').to.match(ANSI);
    const lines = raw.replace(ANSI, '').split('\n');
    const logLines = lines.filter((line) => /^\d\d:\d\d:\d\d\.\d{3} /.test(line));
    expect(lines.filter((line) => line.startsWith('{')), 'no JSON line on a terminal').to.deep.equal([]);
    expect(logLines.some((line) => /^\d\d:\d\d:\d\d\.\d{3} INFO {2}API listening {2}host=127\.0\.0\.1 port=\d+ tls=false /.test(line)), raw).to.equal(true);
    expect(logLines.some((line) => /^\d\d:\d\d:\d\d\.\d{3} WARN {2}webhook signing secrets are stored in the clear/.test(line)), raw).to.equal(true);
    for (const line of logLines) expect(line, 'the service field is left out').not.to.contain('service=');
    expectBannerApart(lines);
  });

  it('LOG_FORMAT=json writes JSON on a terminal too', async () => {
    const env = { ...(await fresh()), LOG_FORMAT: 'json' };
    const server = start('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} serve`, '/dev/null'], env);
    try {
      await listening(server.stdout);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const lines = server.stdout().replaceAll('\r', '').split('\n');
    const listeningLine = lines.find((line) => line.includes('"msg":"API listening"'));
    expect(listeningLine, server.stdout()).to.be.a('string');
    expect((JSON.parse(listeningLine!) as { port: number }).port).to.equal(Number(env.PORT));
  });
});

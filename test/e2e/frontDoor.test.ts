import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CLI, startServer } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

const REPOSITORY = fileURLToPath(new URL('../../..', import.meta.url));

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** An IPv4 address of this machine other than loopback, if it has one. */
const otherAddress = (): string | null =>
  Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address ?? null;

const eventually = async (check: () => Promise<boolean>, withinMs: number): Promise<boolean> => {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
};

describe('the front door: where a first start listens, and npm start', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('chronicle-front-door-')));
  afterEach(() => dir.dispose());

  it('listens on loopback by default, and on every interface with HOST=0.0.0.0', async function () {
    const other = otherAddress();
    const loopback = await startServer({ DATA_DIR: dir.path });
    try {
      const port = Number(new URL(loopback.baseUrl).port);
      expect(await accepts('127.0.0.1', port)).to.equal(true);
      if (other) expect(await accepts(other, port), `${other} must not reach a loopback server`).to.equal(false);
    } finally {
      await loopback.stop();
    }
    if (!other) this.skip();
    const everywhere = await startServer({ DATA_DIR: dir.path, HOST: '0.0.0.0' });
    try {
      expect(await accepts(other, Number(new URL(everywhere.baseUrl).port))).to.equal(true);
    } finally {
      await everywhere.stop();
    }
  });

  it('a server started by `npm start` stops when npm is killed (SIGKILL), instead of running on, orphaned', async () => {
    const npm = spawn('npm', ['start'], {
      cwd: REPOSITORY,
      env: { ...process.env, DATA_DIR: dir.path, PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const port = await new Promise<number>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on https?:\/\/localhost:(\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      };
      npm.stdout.on('data', onData);
      npm.stderr.on('data', onData);
      npm.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
    });
    expect(await accepts('127.0.0.1', port)).to.equal(true);
    npm.kill('SIGKILL');
    expect(await eventually(async () => !(await accepts('127.0.0.1', port)), 10_000), 'the server still listens').to.equal(true);
  });

  it('a server whose `npm start` is killed while it is still starting stops too', async () => {
    const starting = join(dir.path, 'killed-while-starting');
    const npm = spawn('npm', ['start'], {
      cwd: REPOSITORY,
      env: { ...process.env, DATA_DIR: starting, PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    /** The server npm started: the Node process running `serve` whose environment names this DATA_DIR (not npm's shell). */
    const serverPid = (): number | null => {
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
          if (!/(^|\/)node$/.test(argv[0] ?? '') || argv.at(-2) !== 'serve') continue;
          if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`DATA_DIR=${starting}`)) return Number(entry);
        } catch {
          // Gone meanwhile, or not ours to read.
        }
      }
      return null;
    };
    let pid: number | null = null;
    expect(await eventually(async () => (pid = serverPid()) !== null, 20_000), 'npm started the server').to.equal(true);
    // Killed as soon as the server exists: long before it listens.
    npm.kill('SIGKILL');
    const alive = (): boolean => {
      try {
        process.kill(pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(await eventually(async () => !alive(), 20_000), `the server (pid ${pid}) still runs`).to.equal(true);
  });

  it('reads .env in the working folder for what the environment does not set', () => {
    const project = join(dir.path, 'project');
    mkdirSync(project);
    writeFileSync(join(project, '.env'), `DATA_DIR=${join(dir.path, 'from-dotenv')}\nLOG_LEVEL=warn\n`);
    const { DATA_DIR: _unset, ...environment } = process.env;
    const run = (env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [CLI, 'companies', 'create', '--name', 'Dotenv', '--json'], { cwd: project, env, encoding: 'utf8' });
    expect(run(environment).status).to.equal(0);
    expect(existsSync(join(dir.path, 'from-dotenv', 'chronicle.sqlite'))).to.equal(true);
    // A variable set in the environment wins over the file.
    expect(run({ ...environment, DATA_DIR: join(dir.path, 'from-env') }).status).to.equal(0);
    expect(existsSync(join(dir.path, 'from-env', 'chronicle.sqlite'))).to.equal(true);
  });
});

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { CLI, runCli, type CliRun } from '../support/runCli.js';
import { eventually } from '../support/events.js';
import { tempDir } from '../support/tempStore.js';

const json = <T>(run: CliRun): T => {
  expect(run.code, run.stderr).to.equal(0);
  return JSON.parse(run.stdout) as T;
};

interface Tail {
  /** Complete stdout lines so far. */
  readonly lines: () => string[];
  /** Waits (bounded) until `count` lines were printed. */
  readonly waitForLines: (count: number) => Promise<string[]>;
  /** Sends the signal; resolves with the exit code and the final output. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; lines: string[]; stderr: string }>;
}

/** Starts `chronicle events tail <args>` and resolves once it follows the log. */
const startTail = async (args: readonly string[], env: NodeJS.ProcessEnv): Promise<Tail> => {
  const child = spawn(process.execPath, [CLI, 'events', 'tail', ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const lines = () => stdout.split('\n').slice(0, -1);
  try {
    await eventually(() => stderr.includes('Following'), 15_000, 20);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`tail did not start: ${stderr}`, { cause: error });
  }
  return {
    lines,
    waitForLines: async (count) => {
      await eventually(() => lines().length >= count, 15_000, 20).catch(() => {
        throw new Error(`expected ${count} lines, got:\n${stdout}\n${stderr}`);
      });
      return lines();
    },
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      const code = await exited;
      await closed;
      return { code, lines: lines(), stderr };
    },
  };
};

const LINE = /^(\d+) {2}(\S+) {2}rev (\d+) {2}(\w+) {2}(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$/;

describe('chronicle CLI: events tail', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let acme: string;
  let globex: string;
  const cli = (...args: string[]) => runCli(args, env);
  let tail: Tail | null = null;

  beforeEach(async () => {
    dir = tempDir();
    env = { DATA_DIR: dir.path };
    acme = json<{ id: string }>(await cli('companies', 'create', '--name', 'Acme', '--json')).id;
    globex = json<{ id: string }>(await cli('companies', 'create', '--name', 'Globex', '--json')).id;
  });
  afterEach(async () => {
    await tail?.stop('SIGKILL');
    tail = null;
    dir.dispose();
  });

  it("follows the log from its head, prints one line per event of the company, and exits 0 on SIGTERM", async () => {
    tail = await startTail(['--company', acme], env);
    const agent = json<{ id: string }>(await cli('agents', 'create', '--company', acme, '--name', 'Bot', '--json'));
    json(await cli('agents', 'create', '--company', globex, '--name', 'Other', '--json'));
    const user = json<{ id: string }>(await cli('users', 'create', '--company', acme, '--name', 'Grace', '--email', 'g@example.com', '--json'));
    await tail.waitForLines(2);
    const { code, lines } = await tail.stop('SIGTERM');
    tail = null;
    expect(code).to.equal(0);
    expect(lines).to.have.length(2);
    const [first, second] = lines.map((line) => LINE.exec(line));
    expect(first, lines[0]).to.not.equal(null);
    expect(second, lines[1]).to.not.equal(null);
    expect(first!.slice(2, 5)).to.deep.equal([`agent-${agent.id}`, '0', 'AgentCreated']);
    expect(second!.slice(2, 5)).to.deep.equal([`user-${user.id}`, '0', 'UserCreated']);
    // Positions go up; the other company's agent sits between them in the log.
    expect(Number(second![1])).to.equal(Number(first![1]) + 2);
  });

  it('prints one stream from the start of the log, then its new events, and exits 0 on SIGINT', async () => {
    const agent = json<{ id: string }>(await cli('agents', 'create', '--company', acme, '--name', 'Bot', '--json'));
    tail = await startTail(['--stream', `agent-${agent.id}`, '--from-start'], env);
    await tail.waitForLines(1);
    json(await cli('users', 'create', '--company', acme, '--name', 'Grace', '--email', 'g@example.com', '--json'));
    json(await cli('agents', 'update', agent.id, '--status', 'paused', '--json'));
    const lines = await tail.waitForLines(2);
    expect(lines.map((line) => LINE.exec(line)?.slice(2, 5))).to.deep.equal([
      [`agent-${agent.id}`, '0', 'AgentCreated'],
      [`agent-${agent.id}`, '1', 'AgentUpdated'],
    ]);
    const stopped = await tail.stop('SIGINT');
    tail = null;
    expect(stopped.code).to.equal(0);
    expect(stopped.lines).to.have.length(2);
  });

  it('prints whole events as JSON lines, and never the API key itself', async () => {
    tail = await startTail(['--company', acme, '--json', '--from-start'], env);
    const [companyLine] = await tail.waitForLines(1);
    expect(JSON.parse(companyLine!)).to.deep.include({ stream: `company-${acme}`, revision: 0, type: 'CompanyCreated', position: '1' });
    const issued = json<{ id: string; key: string }>(await cli('keys', 'create', '--company', acme, '--permissions', 'all', '--json'));
    const lines = await tail.waitForLines(2);
    const keyEvent = JSON.parse(lines[1]!) as { type: string; data: Record<string, unknown>; metadata: Record<string, unknown> };
    expect(keyEvent).to.deep.include({ type: 'ApiKeyIssued', stream: `apikey-${issued.id}` });
    expect(keyEvent.data).to.include({ keyId: issued.id, companyId: acme, keyHint: `chr_...${issued.key.slice(-4)}` });
    expect(keyEvent.metadata).to.include({ source: 'cli', companyId: acme });
    expect(lines.join('\n')).to.not.contain(issued.key);
    expect(lines.join('\n')).to.not.contain(issued.key.slice(4, 34));
  });
});

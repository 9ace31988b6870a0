import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../../bin/chronicle.js', import.meta.url));

/** What `chronicle` prints when a failed command did not end by itself and its 10 s bound ended it. */
export const LEFT_RUNNING = 'still running 10 s after the command failed';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `chronicle <args>` as a user would, with the given environment. */
export const runCli = (args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    // Run from a folder of no project: a `.env` of the checkout must not reach the tests.
    const child = spawn(process.execPath, [CLI, ...args], { cwd: tmpdir(), env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly output: () => string;
  /** SIGTERM, then resolves with the exit code. */
  readonly stop: () => Promise<number | null>;
}

export interface StartServerOptions {
  /** A command that runs the server, e.g. `ip netns exec <name>` to run it on a test host of its own. */
  readonly prefix?: readonly string[];
}

/** Starts `chronicle serve` on a free port and resolves once it listens (at the address it names). */
export const startServer = (env: NodeJS.ProcessEnv, options: StartServerOptions = {}): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const [command, ...args] = [...(options.prefix ?? []), process.execPath, CLI, 'serve'];
    const child = spawn(command!, args, {
      cwd: tmpdir(),
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    });
    let output = '';
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (https?:\/\/(?:localhost|\d+\.\d+\.\d+\.\d+|\[[0-9a-f:]+\]):\d+\S*)/.exec(output);
      if (match) {
        resolve({
          child,
          baseUrl: match[1]!,
          output: () => output,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });

import { expect } from 'chai';
import { runCli, startServer } from './runCli.js';
import { bytesFound } from './personalValues.js';

/**
 * The end of an erasure's byte scan: a restart, a replay of every read model, a
 * verify and a compaction, after which none of `spellings` is in `files()`, nor in
 * what those wrote (with `earlier`, what an earlier step of the test wrote).
 */
export const noValuesAfterReplay = async (env: NodeJS.ProcessEnv, files: () => Promise<string[]>, spellings: readonly string[], earlier = ''): Promise<void> => {
  const again = await startServer(env);
  await again.stop();
  const replayed = await runCli(['replay'], env);
  expect(replayed.code, replayed.stderr).to.equal(0);
  const verified = await runCli(['verify'], env);
  expect(verified.code, verified.stdout + verified.stderr).to.equal(0);
  expect((await runCli(['erasures', 'compact'], env)).code).to.equal(0);
  expect(bytesFound(await files(), spellings), 'values in the stored bytes after a replay').to.deep.equal([]);
  const said = earlier + again.output() + replayed.stdout + replayed.stderr + verified.stdout + verified.stderr;
  expect(spellings.filter((spelling) => said.includes(spelling)), 'values in what the restart, replay and verify wrote').to.deep.equal([]);
};

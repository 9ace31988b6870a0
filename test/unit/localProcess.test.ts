import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { isRunning, judgeHolder, thisProcess } from '../../src/startup/localProcess.js';

/** A child process that has exited (and was reaped): its pid runs no more. */
const deadPid = async (): Promise<number> => {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
};

describe('this process, as a lease names it', () => {
  it('names its pid, host and role', () => {
    expect(thisProcess('projector')).to.deep.include({ role: 'projector', pid: process.pid, host: hostname() });
  });

  describe('isRunning', () => {
    it('is true for this process and false for a child that exited', async () => {
      expect(isRunning(process.pid)).to.equal(true);
      expect(isRunning(await deadPid())).to.equal(false);
    });
  });

  describe('judgeHolder', () => {
    it('tells gone only for a pid gone from this host and pid namespace; running for one that runs here; elsewhere unknown', async () => {
      const here = thisProcess('projector');
      const pid = await deadPid();
      expect(judgeHolder({ ...here, owner: 'x', pid })).to.equal('gone');
      expect(judgeHolder({ ...here, owner: 'x' }), 'this process').to.equal('running');
      expect(judgeHolder({ ...here, owner: 'x', pid, host: `${here.host}-other` }), 'another host: never judged here').to.equal('unknown');
      expect(judgeHolder({ ...here, owner: 'x', pid, scope: 'another-boot/pid:[1]' }), 'another container of this host').to.equal('unknown');
    });
  });
});

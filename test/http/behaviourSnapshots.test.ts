import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { committedSnapshots, currentSnapshots, firstDifference, SNAPSHOTS_DIR, UPDATE_SNAPSHOTS } from '../support/behaviourSnapshots.js';

/**
 * What users see, unchanged: both OpenAPI documents, every CLI command's
 * `--help` and every console page (rendered by a whole Chronicle at a fixed
 * clock, see test/support/consolePages.ts) are what the committed snapshots
 * in test/fixtures/snapshots/ say. A change meant to change them is committed
 * with the snapshots `npm run snapshots:update` writes.
 */
describe('snapshots of what users see (test/fixtures/snapshots/)', function () {
  this.timeout(30_000);
  const committed = existsSync(SNAPSHOTS_DIR) ? committedSnapshots() : new Map<string, string>();
  let current: Map<string, string>;
  before(async () => (current = await currentSnapshots()));

  const update = `if the change is meant, run \`${UPDATE_SNAPSHOTS}\` and commit the snapshots with it`;

  it('are every snapshot the code gives, and no other', () => {
    expect([...committed.keys()].sort(), `the committed snapshots are not the ones the code gives; ${update}`).to.deep.equal([...current.keys()].sort());
  });

  for (const [path, snapshot] of committed) {
    it(path, () => {
      const now = current.get(path);
      if (now === undefined) expect.fail(`the code no longer gives ${path}; ${update}`);
      if (now !== snapshot) expect.fail(`${path} is not what the code gives now; ${update}.\n${firstDifference(snapshot, now)}`);
    });
  }
});

import { expect } from 'chai';
import { runCli, startServer } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

describe('key revocation by the CLI against a running server', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.dispose());

  it('prints the demo key once, and a key revoked from another process stops working', async () => {
    const server = await startServer({ DATA_DIR: dir.path });
    try {
      const companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())?.[1];
      expect(companyId, server.output()).to.be.a('string');
      const env = { DATA_DIR: dir.path };

      const created = await runCli(['keys', 'create', '--company', companyId!, '--permissions', 'contacts:read', '--json'], env);
      expect(created.code, created.stderr).to.equal(0);
      const { id, key } = JSON.parse(created.stdout) as { id: string; key: string };

      const test = () => fetch(`${server.baseUrl}/test`, { headers: { Authorization: `Bearer ${key}` } });
      // Waited for as long as it takes the server to see it (a generous bound: only a key never seen fails).
      const deadline = Date.now() + 10_000;
      while ((await test()).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect((await test()).status).to.equal(200);

      const revoked = await runCli(['keys', 'revoke', id, '--json'], env);
      expect(revoked.code, revoked.stderr).to.equal(0);
      // Refused once the server sees the revocation (how soon, against the 1 s bound: `npm run bench:timings`).
      const revokedAt = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 10_000) {
        status = (await test()).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 10));
      }
      expect(status).to.equal(401);
    } finally {
      await server.stop();
    }
    // A second start on the same store creates no second demo key.
    const again = await startServer({ DATA_DIR: dir.path });
    try {
      expect(again.output()).not.to.contain('API key chr_');
    } finally {
      await again.stop();
    }
  });
});

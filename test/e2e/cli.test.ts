import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServer } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

describe('chronicle CLI', function () {
  this.timeout(20_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.dispose());

  it('lists its commands', async () => {
    const run = await runCli(['--help']);
    expect(run.code).to.equal(0);
    expect(run.stdout).to.contain('serve');
  });

  it('exits non-zero on an unknown command', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.contain("unknown command 'frobnicate'");
  });

  it('refuses to start with a bad variable and names it', async () => {
    const run = await runCli(['serve'], { DATA_DIR: dir.path, PORT: 'eighty', RATE_LIMIT_DAILY: '-1' });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.contain('PORT="eighty"');
    expect(run.stderr).to.contain('RATE_LIMIT_DAILY="-1"');
  });

  it('serves on embedded storage, answers /health, and stops cleanly on SIGTERM', async () => {
    const server = await startServer({ DATA_DIR: dir.path });
    try {
      const response = await fetch(`${server.baseUrl}/health`);
      expect(response.status).to.equal(200);
      const body = (await response.json()) as { success: boolean; data: Record<string, unknown> };
      expect(body.success).to.equal(true);
      expect(body.data).to.include({ status: 'ok', eventStore: 'sqlite', readModels: 'sqlite' });
      expect(body.data.projections).to.include({ caughtUp: true, lagMs: 0 });
    } finally {
      expect(await server.stop()).to.equal(0);
    }
  });

  it('handles SIGTERM from the moment it says it listens (a stop sent at once is graceful, exit 0)', async function () {
    // Nine starts and stops: bounded generously, a busy machine takes several seconds for each.
    this.timeout(120_000);
    // Without the handlers in place before the line, a SIGTERM sent right away ended most of these by the signal.
    for (const roles of [{}, { RUN_API: 'false', RUN_PROJECTIONS: 'false' }, { RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' }]) {
      for (let i = 0; i < 3; i++) {
        const fresh = tempDir();
        try {
          const server = await startServer({ DATA_DIR: fresh.path, ...roles });
          expect(await server.stop(), server.output()).to.equal(0);
        } finally {
          fresh.dispose();
        }
      }
    }
  });

  it('keeps the read models in memory with READ_MODELS=memory: rebuilt from the log at every start, no read-model file', async () => {
    const env = { DATA_DIR: dir.path, READ_MODELS: 'memory' };
    const company = JSON.parse((await runCli(['companies', 'create', '--name', 'Acme', '--json'], env)).stdout) as { id: string };
    const { key } = JSON.parse(
      (await runCli(['keys', 'create', '--company', company.id, '--permissions', 'all', '--json'], env)).stdout,
    ) as { key: string };
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const first = await startServer(env);
    try {
      const health = (await (await fetch(`${first.baseUrl}/health`)).json()) as { data: Record<string, unknown> };
      expect(health.data).to.include({ readModels: 'memory' });
      const created = await fetch(`${first.baseUrl}/contacts`, { method: 'POST', headers, body: JSON.stringify({ name: 'Ada', phoneNumber: '+4915112345678' }) });
      expect(created.status).to.equal(201);
    } finally {
      expect(await first.stop()).to.equal(0);
    }
    const again = await startServer(env);
    try {
      const listed = (await (await fetch(`${again.baseUrl}/contacts`, { headers })).json()) as { data: { name: string }[] };
      expect(listed.data.map((contact) => contact.name)).to.deep.equal(['Ada']);
    } finally {
      expect(await again.stop()).to.equal(0);
    }
    expect(existsSync(join(dir.path, 'read-models.sqlite'))).to.equal(false);
  });

  it('serves every route under BASE_PATH', async () => {
    const server = await startServer({ DATA_DIR: dir.path, BASE_PATH: '/api/external' });
    try {
      expect(server.baseUrl).to.match(/\/api\/external$/);
      expect((await fetch(`${server.baseUrl}/health`)).status).to.equal(200);
      expect((await fetch(server.baseUrl.replace('/api/external', '/health'))).status).to.equal(404);
    } finally {
      await server.stop();
    }
  });
});

import { expect } from 'chai';
import pg from 'pg';
import { eventually } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { postgresServerInstalled, startPostgresCluster, startPostgresReplica, type TestCluster, type TestReplica } from '../support/postgresCluster.js';
import { startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

const call = async (baseUrl: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

/** `chronicle_replica_reads_total` of a process, by `read_from`. */
const replicaReads = async (baseUrl: string): Promise<Record<string, number>> => {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^chronicle_replica_reads_total\{read_from="(\w+)"\} (\d+)/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
};

const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

if (!postgresServerInstalled()) {
  skipLine('API processes reading from a PostgreSQL replica (POSTGRES_READ_URL)', 'a PostgreSQL server (Debian: postgresql)');
} else {
  /**
   * A primary and a streaming replica (pg_basebackup), one process that writes the read
   * models on the primary (and serves the API), and an API process
   * (RUN_PROJECTIONS=false) that reads them from the replica.
   */
  describe('API processes reading from a PostgreSQL replica (POSTGRES_READ_URL)', function () {
    this.timeout(120_000);
    let cluster: TestCluster;
    let replica: TestReplica;
    let writer: ServerProcess;
    let reader: ServerProcess;
    let key: string;
    const dirs = [tempDir('chronicle-replica-a-'), tempDir('chronicle-replica-b-')];

    before(async () => {
      cluster = await startPostgresCluster();
      const admin = new pg.Client({ connectionString: cluster.url() });
      await admin.connect();
      await admin.query('CREATE DATABASE chronicle');
      await admin.end();
      replica = await startPostgresReplica(cluster);
      const env = { POSTGRES_URL: cluster.url('127.0.0.1', 'chronicle'), POSTGRES_POOL_SIZE: '4' };
      writer = await startServer({ ...env, DATA_DIR: dirs[0]!.path });
      key = /API key (chr_\S+)/.exec(writer.output())?.[1] ?? '';
      expect(key, writer.output()).to.match(/^chr_/);
      reader = await startServer({
        ...env,
        DATA_DIR: dirs[1]!.path,
        RUN_PROJECTIONS: 'false',
        RUN_WEBHOOKS: 'false',
        POSTGRES_READ_URL: replica.url('chronicle'),
        POSTGRES_READ_FALLBACK_MS: '300',
        READY_MAX_LAG_MS: '500',
      });
    });

    after(async () => {
      const codes = await Promise.all([reader, writer].filter(Boolean).map((process) => process.stop()));
      await replica?.stop();
      await cluster?.stop();
      for (const dir of dirs) dir.dispose();
      expect(codes.every((code) => code === 0), 'every process stops cleanly').to.equal(true);
    });

    it("reads its own writes from the replica, and a writer's with X-Min-Log-Position", async () => {
      const before = await replicaReads(reader.baseUrl);
      const created = await call(reader.baseUrl, key, 'POST', '/contacts', { name: 'Barbara Liskov', phoneNumber: '+1 617 555 0101' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      // Its own create: the next read of the company waits for it, on the replica.
      const own = await call(reader.baseUrl, key, 'GET', `/contacts/${created.body.data.id}`);
      expect(own.status, JSON.stringify(own.body)).to.equal(200);
      expect(own.body.data.name).to.equal('Barbara Liskov');

      const elsewhere = await call(writer.baseUrl, key, 'POST', '/deals', { title: 'Abstraction', value: 1974, stage: 'Lead' });
      expect(elsewhere.status).to.equal(201);
      const read = await call(reader.baseUrl, key, 'GET', `/deals/${elsewhere.body.data.id}`, undefined, {
        'X-Min-Log-Position': elsewhere.headers.get('x-log-position')!,
      });
      expect(read.status, JSON.stringify(read.body)).to.equal(200);
      expect(read.headers.get('x-read-your-writes')).to.equal(null);

      const after = await replicaReads(reader.baseUrl);
      expect((after.replica ?? 0) - (before.replica ?? 0), JSON.stringify(after)).to.be.at.least(1);
      const metrics = await (await fetch(`${reader.baseUrl}/metrics`)).text();
      expect(metrics).to.match(/^chronicle_projection_position\{subscription="read-replica"\} \d+/m);
    });

    it('reads from the primary, and counts it, when the replica has not applied what a read waits for', async () => {
      await replica.pauseReplay();
      try {
        const before = await replicaReads(reader.baseUrl);
        const created = await call(writer.baseUrl, key, 'POST', '/contacts', { name: 'Frances Allen', phoneNumber: '+1 914 555 0102' });
        expect(created.status).to.equal(201);
        const id = created.body.data.id as string;
        // Without a position, a read is eventually consistent: the paused replica does not have it yet.
        const stale = await call(reader.baseUrl, key, 'GET', '/contacts?limit=100');
        expect(stale.status).to.equal(200);
        expect(ids(stale.body), 'a read without a position comes from the paused replica').not.to.include(id);
        // With its position, it waits for the replica 300 ms, then reads from the primary.
        const fresh = await call(reader.baseUrl, key, 'GET', `/contacts/${id}`, undefined, { 'X-Min-Log-Position': created.headers.get('x-log-position')! });
        expect(fresh.status, JSON.stringify(fresh.body)).to.equal(200);
        expect(fresh.body.data.name).to.equal('Frances Allen');
        expect(fresh.headers.get('x-read-your-writes')).to.equal(null);
        const after = await replicaReads(reader.baseUrl);
        expect((after.primary_lag ?? 0) - (before.primary_lag ?? 0)).to.equal(1);

        // /ready shows the replica behind, and stays ready.
        await eventually(async () => {
          const ready = await fetch(`${reader.baseUrl}/ready`);
          const body = (await ready.json()) as { data: { checks: Record<string, { status: string; lagMs?: number }> } };
          expect(ready.status, 'a replica behind leaves the process ready').to.equal(200);
          return body.data.checks.readReplica?.status === 'lagging';
        }, 10_000, 100);
      } finally {
        await replica.resumeReplay();
      }
      await eventually(async () => {
        const body = (await (await fetch(`${reader.baseUrl}/ready`)).json()) as { data: { checks: Record<string, { status: string }> } };
        return body.data.checks.readReplica?.status === 'ok';
      }, 20_000, 100);
    });

    it('answers every read from the primary when the replica is gone', async () => {
      await replica.stop();
      const before = await replicaReads(reader.baseUrl);
      const created = await call(writer.baseUrl, key, 'POST', '/contacts', { name: 'Jean Sammet', phoneNumber: '+1 212 555 0103' });
      expect(created.status).to.equal(201);
      for (let i = 0; i < 3; i++) {
        const read = await call(reader.baseUrl, key, 'GET', `/contacts/${created.body.data.id}`, undefined, { 'X-Min-Log-Position': created.headers.get('x-log-position')! });
        expect(read.status, JSON.stringify(read.body)).to.equal(200);
        expect(read.body.data.name).to.equal('Jean Sammet');
        const listed = await call(reader.baseUrl, key, 'GET', '/contacts?limit=100');
        expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      }
      const after = await replicaReads(reader.baseUrl);
      expect((after.primary_unavailable ?? 0) - (before.primary_unavailable ?? 0)).to.be.at.least(1);
      const ready = await fetch(`${reader.baseUrl}/ready`);
      expect(ready.status, 'a replica that is gone leaves the process ready').to.equal(200);
    });
  });
}

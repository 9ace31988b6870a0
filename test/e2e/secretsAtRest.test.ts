import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { captureLogger } from '../support/captureLogger.js';
import { eventually } from '../support/events.js';
import { startHarness, type Harness } from '../support/httpHarness.js';
import { runCli, startServer } from '../support/runCli.js';
import { startSignedReceiver, type SignedReceiver } from '../support/signedReceiver.js';
import { sqliteOf } from '../support/sqliteOf.js';
import { tempDir } from '../support/tempStore.js';

const newKey = (): string => randomBytes(32).toString('base64');

/** Every file of `dataDir`, the SQLite files and their -wal and -shm, as one string of their raw bytes. */
const rawBytesOf = (dataDir: string): string =>
  readdirSync(dataDir)
    .map((name) => readFileSync(join(dataDir, name)).toString('latin1'))
    .join('\n');

/** The values kept in the log file's secret table (encrypted or not). */
const keptSecrets = (chronicle: Chronicle): string[] =>
  (sqliteOf(chronicle.stores.eventStore).db.prepare('SELECT secret FROM webhook_secrets ORDER BY subscription_id').all() as { secret: string }[]).map(
    (row) => row.secret,
  );

let phoneSeq = 0;
const phone = () => `+4916200${String(++phoneSeq).padStart(5, '0')}`;

describe('webhook signing secrets at rest', function () {
  this.timeout(60_000);
  let receiver: SignedReceiver;
  before(async () => (receiver = await startSignedReceiver()));
  after(() => receiver.close());

  describe('a server started with SECRETS_KEY', () => {
    let api: Harness;
    before(async () => (api = await startHarness({ SECRETS_KEY: newKey(), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })));
    after(() => api.close());

    it('never writes the secret to disk, yet signs with the one returned at subscribe and replays it', async () => {
      const subscribe = () =>
        api.request('POST', '/webhooks/subscribe', {
          body: { event: 'contact.created', target_url: receiver.url },
          headers: { 'Idempotency-Key': 'subscribe-once' },
        });
      const subscribed = await subscribe();
      expect(subscribed.status).to.equal(201);
      const { id, secret } = subscribed.body.data as { id: string; secret: string };
      // The idempotent replay reads the secret back through the decorator.
      expect((await subscribe()).body.data).to.include({ id, secret });

      const created = await api.request('POST', '/contacts', { body: { name: 'Sealed', phoneNumber: phone() } });
      await eventually(() => receiver.verifiedWith(secret).length === 1, 10_000);
      expect(receiver.verifiedWith(secret)[0]!.data).to.deep.equal(created.body.data);

      const kept = keptSecrets(api.chronicle);
      expect(kept).to.have.length(1);
      expect(kept[0]).to.match(/^enc:v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]+$/);
      const raw = rawBytesOf(api.dataDir);
      expect(raw).to.include(kept[0]!.slice(0, 40));
      expect(raw).not.to.include(secret.slice('whsec_'.length));
      expect(raw).not.to.include(secret.slice('whsec_'.length, 'whsec_'.length + 16));
      expect(api.logs()).not.to.include(secret.slice('whsec_'.length));
      expect(api.logs()).not.to.include('stored in the clear');
    });
  });

  it('with API_WORKERS and no key, `chronicle serve` warns once, not once per process', async () => {
    const dir = tempDir('chronicle-secrets-workers-');
    try {
      const server = await startServer({ DATA_DIR: dir.path, API_WORKERS: '2' });
      const code = await server.stop();
      expect(code).to.equal(0);
      expect(server.output().match(/stored in the clear/g)).to.have.length(1);
    } finally {
      dir.dispose();
    }
  });

  describe('over the life of one DATA_DIR: in the clear, encrypted, rotated, a wrong key', () => {
    const dir = tempDir('chronicle-secrets-e2e-');
    after(() => dir.dispose());
    const [keyA, keyB, keyC] = [newKey(), newKey(), newKey()];
    // Several, so that a value rewritten in place would leave old bytes in a page's free space.
    const SUBSCRIPTIONS = 20;
    const secrets: string[] = [];
    let secret: string;

    const start = async (env: NodeJS.ProcessEnv) => {
      const logger = captureLogger();
      const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...env });
      return { chronicle: await startChronicle(config, logger), logger };
    };
    const call = async (chronicle: Chronicle, path: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${chronicle.port}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${demoKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    /** A contact created, and its delivery to every subscription, signed with its secret, received. */
    const deliveredSigned = async (chronicle: Chronicle) => {
      const before = secrets.map((one) => receiver.verifiedWith(one).length);
      expect((await call(chronicle, '/contacts', { name: 'Delivered', phoneNumber: phone() })).status).to.equal(201);
      await eventually(() => secrets.every((one, i) => receiver.verifiedWith(one).length === before[i]! + 1), 15_000);
    };
    let demoKey: string;

    it('without a key: warns once that secrets are in the clear, and keeps them so', async () => {
      const { chronicle, logger } = await start({});
      demoKey = chronicle.demo!.key;
      try {
        for (let i = 0; i < SUBSCRIPTIONS; i++) {
          const subscribed = await call(chronicle, '/webhooks/subscribe', { event: 'contact.created', target_url: receiver.url });
          expect(subscribed.status).to.equal(201);
          secrets.push(subscribed.body.data.secret);
        }
        secret = secrets[0]!;
        expect(keptSecrets(chronicle).sort()).to.deep.equal([...secrets].sort());
        const warnings = logger.lines.filter((line) => line.level === 'warn' && line.msg?.includes('stored in the clear'));
        expect(warnings).to.have.length(1);
      } finally {
        await chronicle.close();
      }
      const raw = rawBytesOf(dir.path);
      for (const one of secrets) expect(raw).to.include(one.slice('whsec_'.length));
    });

    it('with SECRETS_KEY: encrypts them at start, erased from the file, and still signs with them', async () => {
      const { chronicle, logger } = await start({ SECRETS_KEY: keyA });
      try {
        const told = logger.lines.find((line) => line.msg === 'webhook signing secrets encrypted under SECRETS_KEY');
        expect(told?.obj).to.deep.include({ encrypted: SUBSCRIPTIONS, reencrypted: 0 });
        expect(logger.lines.some((line) => line.msg?.includes('stored in the clear'))).to.equal(false);
        expect(keptSecrets(chronicle)[0]).to.match(/^enc:v1:/);
        await deliveredSigned(chronicle);
        expect(JSON.stringify(logger.lines)).not.to.include(secret.slice('whsec_'.length));
      } finally {
        await chronicle.close();
      }
      const raw = rawBytesOf(dir.path);
      expect(secrets.filter((one) => raw.includes(one.slice('whsec_'.length)))).to.deep.equal([]);
    });

    it('with a wrong key: refuses to start (exit 2 from the CLI), naming the variable, never a secret', async () => {
      let refused: unknown;
      await start({ SECRETS_KEY: keyB }).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(ConfigError);
      const message = (refused as Error).message;
      expect(message).to.include(`SECRETS_KEY cannot decrypt ${SUBSCRIPTIONS} stored webhook secret`).and.include('neither SECRETS_KEY');
      expect(message).not.to.include(secret.slice('whsec_'.length)).and.not.include(keyA).and.not.include(keyB);

      const served = await runCli(['serve'], { DATA_DIR: dir.path, PORT: '0', SECRETS_KEY: keyB });
      expect(served.code).to.equal(2);
      expect(served.stderr).to.include('SECRETS_KEY cannot decrypt');
    });

    it('rotated to a new key with the old one as previous: encrypted again at start, then the new key alone does', async () => {
      const rotated = await start({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA });
      try {
        expect(rotated.logger.lines.find((line) => line.msg === 'webhook signing secrets encrypted under SECRETS_KEY')?.obj).to.deep.include({
          encrypted: 0,
          reencrypted: SUBSCRIPTIONS,
        });
        expect(rotated.logger.lines.some((line) => line.msg?.includes('SECRETS_KEY_PREVIOUS: it can be removed'))).to.equal(true);
      } finally {
        await rotated.chronicle.close();
      }
      const { chronicle } = await start({ SECRETS_KEY: keyB });
      try {
        await deliveredSigned(chronicle);
      } finally {
        await chronicle.close();
      }
    });

    it('`chronicle secrets rotate` encrypts under a new key while the server may run, and reports what no key opens', async () => {
      const rotated = await runCli(['secrets', 'rotate', '--json'], { DATA_DIR: dir.path, SECRETS_KEY: keyC, SECRETS_KEY_PREVIOUS: keyB });
      expect(rotated.code, rotated.stderr).to.equal(0);
      expect(JSON.parse(rotated.stdout)).to.deep.include({ examined: SUBSCRIPTIONS, reencrypted: SUBSCRIPTIONS, encrypted: 0, unreadable: [], forgotten: 0 });

      const withoutKey = await runCli(['secrets', 'rotate'], { DATA_DIR: dir.path });
      expect(withoutKey.code).to.equal(2);
      expect(withoutKey.stderr).to.include('SECRETS_KEY (or SECRETS_KEY_FILE) is not set');

      const wrong = await runCli(['secrets', 'rotate', '--json'], { DATA_DIR: dir.path, SECRETS_KEY: keyA });
      expect(wrong.code).to.equal(1);
      expect(JSON.parse(wrong.stdout).unreadable).to.have.length(SUBSCRIPTIONS);
      expect(wrong.stderr).to.include(`cannot decrypt ${SUBSCRIPTIONS} stored webhook secret`);
      expect(wrong.stdout + wrong.stderr).not.to.include(secret.slice('whsec_'.length));

      const { chronicle } = await start({ SECRETS_KEY: keyC });
      try {
        await deliveredSigned(chronicle);
      } finally {
        await chronicle.close();
      }
    });

    it('a secret no key opens is never used to sign: the delivery waits, and the failure is logged', async () => {
      const { chronicle, logger } = await start({ SECRETS_KEY: keyC });
      try {
        // Altered in the store while the server runs (the same value bound to another subscription id).
        const db = sqliteOf(chronicle.stores.eventStore).db;
        const rows = db.prepare('SELECT subscription_id AS id, secret FROM webhook_secrets').all() as { id: string; secret: string }[];
        for (const { id, secret: kept } of rows) {
          const payload = Buffer.from(kept.split(':')[3]!, 'base64url');
          payload[20]! ^= 0xff;
          db.prepare('UPDATE webhook_secrets SET secret = ? WHERE subscription_id = ?').run(`${kept.split(':').slice(0, 3).join(':')}:${payload.toString('base64url')}`, id);
        }
        const row = rows[0];
        const received = receiver.received.length;
        expect((await call(chronicle, '/contacts', { name: 'Not signed', phoneNumber: phone() })).status).to.equal(201);
        await eventually(() => logger.lines.some((line) => line.msg === 'webhook queue failed; will retry'), 10_000);
        const failure = logger.lines.find((line) => line.msg === 'webhook queue failed; will retry')!;
        expect(String((failure.obj as { err: Error }).err)).to.match(/subscription [0-9a-f-]{36} cannot be read: it does not decrypt/);
        expect(rows.map((one) => one.id)).to.include(row!.id);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(receiver.received.length).to.equal(received);
      } finally {
        await chronicle.close();
      }

      const forgotten = await runCli(['secrets', 'rotate', '--forget-unreadable', '--json'], { DATA_DIR: dir.path, SECRETS_KEY: keyC });
      expect(forgotten.code, forgotten.stderr).to.equal(0);
      expect(JSON.parse(forgotten.stdout)).to.deep.include({ examined: SUBSCRIPTIONS, forgotten: SUBSCRIPTIONS });
      const { chronicle: after } = await start({ SECRETS_KEY: keyC });
      await after.close();
    });
  });
});

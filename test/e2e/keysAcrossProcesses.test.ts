import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { issueApiKey } from '../../src/features/apiKeys/application/issueApiKey.js';
import { generateApiKey } from '../../src/shared/apiKeyFormat.js';
import { systemClock } from '../../src/shared/Clock.js';
import { newId } from '../../src/shared/ids.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { sleep } from '../support/events.js';
import { assertMatchesOpenApi } from '../support/openApi.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

// Long enough for the waits below to end only when the projector is stopped, never because it is slow
// (a request waits for it to start again within this bound).
const READ_YOUR_WRITES_TIMEOUT_MS = 10_000;

/**
 * An API process (RUN_PROJECTIONS=false) knows keys from the read models the
 * projector beside it keeps. A key issued or revoked in another process (the CLI)
 * is answered as the log has it: a new key is accepted at once, a revoked one
 * refused within a second (measured by `npm run bench:timings`), even while the
 * projector is behind or stopped.
 */
describe('API keys issued and revoked beside an API process and a projector on one DATA_DIR', function () {
  this.timeout(60_000);
  const dir = tempDir('chronicle-keys-');
  const projectorEnv = { DATA_DIR: dir.path, RUN_API: 'false', RUN_WEBHOOKS: 'false' };
  let projector: ServerProcess;
  let api: ServerProcess;
  let companyId: string;

  const test = (key: string) => fetch(`${api.baseUrl}/test`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(20_000) });
  const cliKey = async (): Promise<{ id: string; key: string }> => {
    const run = await runCli(['keys', 'create', '--company', companyId, '--permissions', 'contacts:read', '--json'], { DATA_DIR: dir.path });
    expect(run.code, run.stderr).to.equal(0);
    return JSON.parse(run.stdout) as { id: string; key: string };
  };

  before(async () => {
    const company = await runCli(['companies', 'create', '--name', 'Acme', '--json'], { DATA_DIR: dir.path });
    companyId = (JSON.parse(company.stdout) as { id: string }).id;
    projector = await startServer(projectorEnv);
    api = await startServer({ DATA_DIR: dir.path, RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false', READ_YOUR_WRITES_TIMEOUT_MS: String(READ_YOUR_WRITES_TIMEOUT_MS) });
  });
  after(async () => {
    const codes = await Promise.all([api, projector].map((p) => p.stop()));
    dir.dispose();
    expect(codes).to.deep.equal([0, 0]);
  });

  it('a key is accepted the moment it is issued: by the CLI, and by a writer whose request follows its append at once', async () => {
    const { key } = await cliKey();
    expect((await test(key)).status).to.equal(200);
    // Appended here, used within a millisecond: the projector (which looks at the log every 50 ms) has not applied it yet.
    const log = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
    try {
      for (let i = 0; i < 5; i += 1) {
        const issued = await issueApiKey(
          { eventStore: log, newId, clock: systemClock },
          { companyId, type: 'generic', permissions: ['contacts:read'], expiresAt: null, metadata: { source: 'cli', correlationId: newId() } },
        );
        if (E.isLeft(issued)) throw new Error('not issued');
        const res = await test(issued.right.key);
        expect(res.status, await res.text()).to.equal(200);
      }
    } finally {
      await log.close();
    }
  });

  it('an unknown key, the read models at the head of the log: 401, not a wait that runs out (503)', async () => {
    // With nothing to wait for it is answered at once (test/features/apiKeys/freshApiKeyVerifier.test.ts).
    const res = await test(generateApiKey());
    expect(res.status).to.equal(401);
    expect(((await res.json()) as { error: string }).error).to.equal('Invalid API key');
  });

  it('with the projector stopped: a revoked key is refused (its stream in the log says so), an unknown one is 503 after the wait, a new one accepted once the projector is back', async () => {
    const [revoked, kept] = [await cliKey(), await cliKey()];
    // Both known to the read models (each request waits for them) before the projector stops.
    expect((await test(revoked.key)).status).to.equal(200);
    expect((await test(kept.key)).status).to.equal(200);
    expect(await projector.stop()).to.equal(0);

    const revoke = await runCli(['keys', 'revoke', revoked.id, '--json'], { DATA_DIR: dir.path });
    expect(revoke.code, revoke.stderr).to.equal(0);
    // Refused once the revocation is older than the bound allows the read models to be behind (1 s after it was
    // recorded; how soon: `npm run bench:timings`). Waited for generously: only a key never refused fails.
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 10_000) {
      status = (await test(revoked.key)).status;
      if (status === 200) await sleep(20);
    }
    expect(status).to.equal(401);
    expect((await test(kept.key)).status, 'an active key still works, its stream in the log says so').to.equal(200);

    // Not in the read models, which cannot catch up: neither a wrong 401 nor a wait without end.
    const issued = await cliKey();
    const guessStarted = Date.now();
    const guessed = await test(generateApiKey());
    expect(guessed.status).to.equal(503);
    expect(guessed.headers.get('retry-after')).to.equal('1');
    const body: unknown = await guessed.json();
    expect(body).to.include({ success: false, error: 'Service unavailable', code: 'READ_MODELS_BEHIND' });
    assertMatchesOpenApi({ method: 'GET', path: '/test', status: 503, body, headers: guessed.headers });
    expect(Date.now() - guessStarted, 'after the wait, not before').to.be.at.least(READ_YOUR_WRITES_TIMEOUT_MS - 100);

    // The new key's request waits for the projector; once it is back and has applied the key, it is accepted.
    const pending = test(issued.key);
    const early = await Promise.race([pending.then(() => 'answered'), sleep(500).then(() => 'waiting')]);
    expect(early).to.equal('waiting');
    projector = await startServer(projectorEnv);
    expect((await pending).status).to.equal(200);
    expect((await test(generateApiKey())).status, 'caught up again: an unknown key is 401').to.equal(401);
  });
});

import { expect } from 'chai';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { READ_MODELS_LEASE } from '../../src/application/subscriptions/Lease.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { embeddedReadModelsFile } from '../../src/startup/adapters.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { eventually } from '../support/events.js';
import { freePort } from '../support/freePort.js';
import { tempDir } from '../support/tempStore.js';

/**
 * A projector whose read models' lease is held by a process it cannot judge (on
 * another host, or its own previous run in a restarted container) waits for it,
 * listening meanwhile: /ready says what it waits for, and it starts once the lease
 * is free (here: released; a crashed holder's lease is free once stale).
 */
describe('a projector waiting for a lease held elsewhere', function () {
  this.timeout(30_000);

  it('listens, answers /ready 503 naming the lease it waits for, and starts once the lease is free', async () => {
    const dir = tempDir('chronicle-lease-wait-');
    const readModels = SqliteReadModelStore.open(embeddedReadModelsFile(dir.path));
    let chronicle: Chronicle | null = null;
    try {
      const elsewhere = { owner: 'holder-elsewhere', role: 'projector', pid: 4242, host: 'another-host', scope: null };
      expect((await readModels.leases.claim(READ_MODELS_LEASE, elsewhere, { staleAfterMs: 15_000 })).taken).to.equal(true);
      const port = await freePort();
      const config = loadConfig({ DATA_DIR: dir.path, PORT: String(port), RUN_API: 'false', RUN_WEBHOOKS: 'false' });
      const starting = startChronicle(config, createLogger('silent'));
      starting.catch(() => undefined);
      // The holder keeps renewing, as a live process on another host would.
      const renewing = setInterval(() => void readModels.leases.renew(READ_MODELS_LEASE, 'holder-elsewhere'), 200);
      try {
        await eventually(
          async () => {
            const ready = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null);
            if (ready?.status !== 503) return false;
            const body = (await ready.json()) as { details?: { checks?: { subscriptions?: { waitingFor?: Record<string, string> } } } };
            const waitingFor = body.details?.checks?.subscriptions?.waitingFor?.['read-models'] ?? '';
            return /the "read-models" lease, held by a projector, pid 4242 on host another-host/.test(waitingFor);
          },
          10_000,
          100,
        );
      } finally {
        clearInterval(renewing);
      }
      await readModels.leases.release(READ_MODELS_LEASE, 'holder-elsewhere');
      chronicle = await starting;
      expect((await readModels.leases.read(READ_MODELS_LEASE))?.pid).to.equal(process.pid);
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/ready`)).status === 200, 10_000, 100);
    } finally {
      await chronicle?.close();
      await readModels.close();
      dir.dispose();
    }
  });
});

import { expect } from 'chai';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { verifyReadModels } from '../../src/application/verify/verifyReadModels.js';
import { EventUpcaster } from '../../src/application/versioning/EventUpcaster.js';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import {
  goldenDifferences,
  goldenLogReleases,
  loadGoldenLog,
  startOnGoldenLog,
  type GoldenLog,
  type GoldenServer,
} from '../support/goldenLog.js';
import { tempDir } from '../support/tempStore.js';
import { READ_MODEL_CHECKS, STORED_EVENT_TYPES } from '../../src/features/index.js';

/** Every event of a golden log (read from a copy), upcast, with the version each was stored in. */
const readGoldenLog = async (log: GoldenLog): Promise<RecordedEvent[]> => {
  const dir = tempDir('chronicle-golden-read-');
  const file = join(dir.path, 'chronicle.sqlite');
  copyFileSync(join(log.folder, 'chronicle.sqlite'), file);
  const store = SqliteEventStore.open(file);
  try {
    const { events, failure } = await new EventUpcaster(store, { types: STORED_EVENT_TYPES }).upcastLog(await store.readAll());
    if (failure) throw failure;
    return events;
  } finally {
    await store.close();
    dir.dispose();
  }
};

/**
 * Today's server started on a copy of each release's golden log
 * (test/fixtures/logs/<commit>/) must load it and show what that release showed:
 * every recorded answer again (new fields allowed, recorded ones equal, request
 * times not compared: see `goldenDifferences`), and the keys it issued still
 * authenticate (or stay refused).
 */
describe('Golden logs: today\'s server on the logs of earlier releases', function () {
  this.timeout(60_000);
  const releases = goldenLogReleases();

  it('has the golden logs of 92d4d5c, 22653f6, 9d3d34c, 283063c and bf089fc', () => {
    expect(releases).to.include.members(['92d4d5c', '22653f6', '9d3d34c', '283063c', 'bf089fc']);
  });

  for (const release of releases) {
    describe(`release ${release}`, () => {
      const log = loadGoldenLog(release);
      let server: GoldenServer;

      before(async () => {
        server = await startOnGoldenLog(log);
      });
      after(async () => {
        await server?.close();
      });

      it('starts on the log, applies all of it to the read models and is ready', async () => {
        const { projections, stores } = server.chronicle;
        expect(projections!.failure).to.equal(null);
        expect(projections!.position).to.equal(await stores.eventStore.headPosition());
        const ready = await server.request('GET', '/ready', null);
        expect(ready.status, JSON.stringify(ready.body)).to.equal(200);
      });

      it(`answers each of the ${log.responses.length} recorded requests as the release did`, async () => {
        const failures: string[] = [];
        for (const recorded of log.responses) {
          const { method, path, credential } = recorded.request;
          const key = log.credentials[credential] as string | undefined;
          if (key === undefined) throw new Error(`credentials.json has no ${credential}`);
          const differences = goldenDifferences(recorded, await server.request(method, path, key));
          if (differences.length > 0) failures.push(`${method} ${path} (${credential}):\n    ${differences.join('\n    ')}`);
        }
        expect(failures, `answers that differ from release ${release}'s:\n  ${failures.join('\n  ')}`).to.deep.equal([]);
      });

      it('still authenticates the key the release issued; its revoked and expired keys stay refused', async () => {
        const valid = await server.request('GET', '/test', log.credentials.key);
        expect(valid.status).to.equal(200);
        expect((valid.body as { data: { companyId: string } }).data.companyId).to.equal(log.credentials.companyId);
        for (const refused of ['revokedKey', 'expiredKey']) {
          const answer = await server.request('GET', '/test', log.credentials[refused]);
          expect(answer.status, refused).to.equal(401);
          expect((answer.body as { error: string }).error).to.equal('Invalid API key');
        }
      });

      it('finds the read models built from the log equal to folds of its streams (chronicle verify)', async () => {
        const report = await verifyReadModels({
          eventStore: server.chronicle.stores.eventStore,
          readModels: new MemoryReadModelStore(),
          checks: READ_MODEL_CHECKS,
          rebuild: true,
        });
        expect(report.differences).to.deep.equal([]);
        expect(report.events).to.be.greaterThan(50);
      });

      // Last: it writes.
      it('takes writes on the old log; history shows the stored versions of old and new events', async () => {
        const { key, ids } = log.credentials;
        const send = async (method: string, path: string, body: unknown) => {
          const response = await fetch(`http://127.0.0.1:${server.chronicle.port}${path}`, {
            method,
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
        };
        const ada = ids.contacts.ada as string;
        const updated = await send('PUT', `/contacts/${ada}`, { city: 'Paris' });
        expect(updated.status).to.equal(200);
        expect(updated.body.data).to.include({ city: 'Paris' });
        const engine = ids.deals.engine as string;
        expect((await send('PUT', `/deals/${engine}/status`, { stage: 'renewal' })).status).to.equal(200);

        // Releases since versions were recorded name them; the release's own events of earlier ones were inferred.
        const recorded = (await readGoldenLog(log)).every((event) => event.version!.recorded);
        // The version each release wrote of the type: 1 up to 92d4d5c, 2 since; DealStatusChanged 3 since deletes (bf089fc).
        const histories = [
          [`/contacts/${ada}/history?limit=200`, 'ContactUpdated', release === '92d4d5c' ? 1 : 2],
          [`/deals/${engine}/history?limit=200`, 'DealStatusChanged', release === '92d4d5c' ? 1 : release === 'bf089fc' ? 3 : 2],
        ] as const;
        const currentOf = (type: string) => STORED_EVENT_TYPES.get(type)!.versions.length;
        for (const [path, type, written] of histories) {
          const current = currentOf(type);
          const history = await server.request('GET', path, key);
          const items = (history.body as { data: { type: string; schema: Record<string, unknown> }[] }).data;
          const last = items.at(-1)!;
          // The event just written records its version.
          expect(last.schema).to.deep.equal({ version: current, storedVersion: current, versionRecorded: true });
          for (const item of items.slice(1, -1)) expect(item.schema).to.include({ version: current, versionRecorded: recorded });
          // The created event, version 1 as stored, shown in its type's current version.
          expect(items[0]!.schema).to.deep.equal({ version: currentOf(items[0]!.type), storedVersion: 1, versionRecorded: recorded });
          const old = items.slice(1, -1).map((item) => item.schema.storedVersion);
          expect(new Set(old)).to.deep.equal(new Set([written]));
        }
      });
    });
  }

  it('holds, for every older version of every stored event type, a log with events of that version', async () => {
    const stored = new Set<string>();
    for (const release of releases) {
      for (const event of await readGoldenLog(loadGoldenLog(release))) stored.add(`${event.type} v${event.version!.stored}`);
    }
    const uncovered: string[] = [];
    for (const type of STORED_EVENT_TYPES.values()) {
      for (let version = 1; version < type.versions.length; version++) {
        if (!stored.has(`${type.type} v${version}`)) uncovered.push(`${type.type} v${version}`);
      }
    }
    expect(
      uncovered,
      `No golden log holds these versions, so nothing checks that today's code still reads them: add the golden log ` +
        `of the last release that wrote them (test/fixtures/logs/README.md): ${uncovered.join(', ')}`,
    ).to.deep.equal([]);
  });

  it('reads the unmarked events of each release with the version that release wrote', async () => {
    const versions = async (release: string) => {
      const found = new Map<string, string>();
      for (const event of await readGoldenLog(loadGoldenLog(release))) {
        expect(event.version!.recorded, `${release} records no versions`).to.equal(false);
        if (event.type === 'ContactUpdated' || event.type === 'DealStatusChanged') {
          const seen = `v${event.version!.stored}`;
          expect(found.get(event.type) ?? seen, `${release} ${event.type}`).to.equal(seen);
          found.set(event.type, seen);
        }
      }
      return Object.fromEntries(found);
    };
    expect(await versions('92d4d5c')).to.deep.equal({ ContactUpdated: 'v1', DealStatusChanged: 'v1' });
    expect(await versions('22653f6')).to.deep.equal({ ContactUpdated: 'v2', DealStatusChanged: 'v2' });
  });
});

describe('Golden logs: how an answer is compared with the recorded one', () => {
  const recorded = (path: string, status: number, body: unknown) => ({ request: { method: 'GET', path, credential: 'key' }, status, body });

  it('needs the same status, and every recorded field equal; new fields may be added', () => {
    const then = recorded('/contacts', 200, { success: true, data: [{ id: 'a', tags: ['x'] }], meta: { total: 1 } });
    expect(goldenDifferences(then, { status: 200, body: { success: true, data: [{ id: 'a', tags: ['x'], schema: 1 }], meta: { total: 1, more: 2 } } })).to.deep.equal([]);
    expect(goldenDifferences(then, { status: 404, body: { success: true, data: [{ id: 'b', tags: [] }], meta: {} } })).to.deep.equal([
      'status: recorded 200, now 404',
      '$.data[0].id: recorded "a", now "b"',
      '$.data[0].tags: recorded 1 items, now 0',
      '$.meta.total: recorded 1, now missing',
    ]);
  });

  it('lets a history item be shown in a newer version of its type, and the feed\'s types grow, nothing else', () => {
    const history = recorded('/deals/d/history', 200, { success: true, data: [{ type: 'DealStatusChanged', schema: { version: 2, storedVersion: 2 } }] });
    const shownIn = (version: number, storedVersion = 2) => ({
      status: 200,
      body: { success: true, data: [{ type: 'DealStatusChanged', schema: { version, storedVersion } }] },
    });
    expect(goldenDifferences(history, shownIn(3))).to.deep.equal([]);
    expect(goldenDifferences(history, shownIn(1))).to.deep.equal(['$.data[0].schema.version: recorded 2, now 1']);
    expect(goldenDifferences(history, shownIn(3, 3))).to.deep.equal(['$.data[0].schema.storedVersion: recorded 2, now 3']);
    const feed = recorded('/events?limit=5', 200, { success: true, data: [], meta: { types: ['contact.created', 'deal.won'] } });
    const feedTypes = (types: string[]) => ({ status: 200, body: { success: true, data: [], meta: { types } } });
    expect(goldenDifferences(feed, feedTypes(['contact.created', 'contact.deleted', 'deal.won']))).to.deep.equal([]);
    expect(goldenDifferences(feed, feedTypes(['deal.won', 'contact.created']))).to.have.length(1);
    expect(goldenDifferences(feed, feedTypes(['contact.created']))).to.have.length(1);
    // Elsewhere a list keeps its length.
    const list = recorded('/contacts', 200, { success: true, data: [], meta: { types: ['a'] } });
    expect(goldenDifferences(list, feedTypes(['a', 'b']))).to.have.length(1);
  });

  it('compares only the format of the request\'s time: GET /test data.timestamp and an error body\'s timestamp', () => {
    const test = recorded('/test', 200, { success: true, data: { companyId: 'c', timestamp: '2026-01-01T00:00:00.000Z' } });
    expect(goldenDifferences(test, { status: 200, body: { success: true, data: { companyId: 'c', timestamp: '2030-05-05T05:05:05.005Z' } } })).to.deep.equal([]);
    expect(goldenDifferences(test, { status: 200, body: { success: true, data: { companyId: 'c', timestamp: 'soon' } } })).to.have.length(1);
    const error = recorded('/contacts/x', 404, { success: false, error: 'Contact not found', timestamp: '2026-01-01T00:00:00.000Z' });
    expect(goldenDifferences(error, { status: 404, body: { success: false, error: 'Contact not found', timestamp: '2031-01-01T00:00:00.000Z' } })).to.deep.equal([]);
    // Any other timestamp is compared.
    const contact = recorded('/contacts/x', 200, { success: true, data: { updatedAt: '2026-01-01T00:00:00.000Z' } });
    expect(goldenDifferences(contact, { status: 200, body: { success: true, data: { updatedAt: '2026-01-01T00:00:00.001Z' } } })).to.have.length(1);
  });
});

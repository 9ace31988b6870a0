import { expect } from 'chai';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import { describeDifference, verifyReadModels, type VerifyReport } from '../../../src/application/verify/verifyReadModels.js';
import { agentStream } from '../../../src/features/agents/domain/agentEvents.js';
import { contactStream } from '../../../src/features/contacts/domain/contactEvents.js';
import { newId } from '../../../src/shared/ids.js';
import { UpcastingEventStore } from '../../../src/application/versioning/UpcastingEventStore.js';
import { contactsProjection } from '../../../src/features/contacts/readModels/contactsProjection.js';
import { tempDir } from '../../support/tempStore.js';
import { writeRealLog, type RealLog } from './realLog.js';
import { PROJECTIONS, READ_MODEL_CHECKS, STORED_EVENT_TYPES } from '../../../src/features/index.js';
import { ProjectionRunner, READ_MODELS_CHECKPOINT } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { replayReadModels } from '../../../src/application/replay/replayReadModels.js';
import { skipLine } from '../../support/integration.js';
import { postgresTestUrl } from '../../support/postgres.js';
import { postgresReadModelStores, type PostgresReadModelFixture } from '../../support/postgresReadModels.js';

/** What `writeRealLog` leaves: 2 companies, 2 contacts, 2 deals, 1 agent, 1 user, 2 keys (in 2 read models), 1 subscription, 1 admin token. */
const DOCUMENTS = 14;
const STREAMS = 12;

describe('verifyReadModels', () => {
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  let log: RealLog;

  beforeEach(async () => {
    dir = tempDir('chronicle-verify-');
    eventStore = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
    log = await writeRealLog(eventStore);
  });
  afterEach(async () => {
    await eventStore.close();
    dir.dispose();
  });

  /** The read models as a server builds them: every projection, fed by the runner. */
  const builtReadModels = async (): Promise<MemoryReadModelStore> => {
    const readModels = new MemoryReadModelStore();
    const collections = PROJECTIONS.map((projection) => readModels.collection(projection));
    const runner = new ProjectionRunner({ eventStore, readModels, collections, logger: silentLogger });
    await runner.start();
    await runner.stop();
    return readModels;
  };

  const lines = (report: VerifyReport): string[] => report.differences.map(describeDifference).sort();

  /** A stored event the log does not hold, at a position the read models have reached. */
  const forged = async (type: string, data: unknown): Promise<RecordedEvent> => ({
    id: newId(),
    stream: 'forged',
    revision: 0,
    position: (await eventStore.headPosition())!,
    type,
    data,
    metadata: { source: 'system', correlationId: 'forged', companyId: log.companyId },
    recordedAt: new Date().toISOString(),
  });

  it('finds the read models the projections build equal to the folds of every stream', async () => {
    const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels: await builtReadModels(), rebuild: false });
    expect(report.differences).to.deep.equal([]);
    expect(report).to.include({ documents: DOCUMENTS, streams: STREAMS, skipped: 0, position: await eventStore.headPosition() });
    expect(report.events).to.equal((await eventStore.readAll()).length);
    expect(report.readModels).to.deep.equal(['contacts', 'deals', 'agents', 'users', 'api_keys', 'api_key_directory', 'webhooks', 'companies', 'admin_tokens']);
  });

  it('builds empty read models from the very events it folds, and finds them equal', async () => {
    const readModels = new MemoryReadModelStore();
    const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: true });
    expect(report.differences).to.deep.equal([]);
    expect(report.documents).to.equal(DOCUMENTS);
    expect(await readModels.collection(contactsProjection).get(log.companyId, log.contactId)).to.have.nested.property('contact.name', 'Ada Lovelace');
  });

  it('lists a changed field, a document without a stream and a stream without a document', async () => {
    const readModels = await builtReadModels();
    const contacts = readModels.collection(contactsProjection);
    const ada = (await contacts.get(log.companyId, log.contactId))!.contact;
    const ghost = newId();
    await contacts.apply([
      await forged('ContactUpdated', {
        contactId: log.contactId,
        companyId: log.companyId,
        changes: { name: 'Eve' },
        updatedAt: ada.updatedAt,
        contact: { ...ada, name: 'Eve' },
      }),
    ]);
    await contacts.apply([await forged('ContactCreated', { contactId: ghost, companyId: log.companyId, name: 'Ghost', phoneNumber: '+1555', tags: [], createdAt: ada.createdAt })]);
    // Appended after the read models were built: a stream they never saw.
    const agentId = newId();
    const agent = { agentId, companyId: log.companyId, name: 'Late', description: null, status: 'active', channels: ['sms'], language: 'en', createdAt: ada.createdAt };
    await eventStore.append(agentStream(agentId), [{ id: newId(), type: 'AgentCreated', data: agent, metadata: { source: 'cli', correlationId: 'c' } }], 'no_stream');

    const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: false });
    expect(lines(report)).to.deep.equal(
      [
        `contacts ${log.companyId}/${log.contactId}: name: log says "Ada Lovelace", read model says "Eve"`,
        `contacts ${log.companyId}/${ghost}: document without a stream in the log`,
        `agents ${log.companyId}/${agentId}: no document, but the log has stream ${agentStream(agentId)}`,
      ].sort(),
    );
    expect(report.differences.find((d) => d.kind === 'field')).to.deep.equal({
      kind: 'field',
      readModel: 'contacts',
      document: `${log.companyId}/${log.contactId}`,
      field: 'name',
      logValue: 'Ada Lovelace',
      readModelValue: 'Eve',
    });
  });

  it('compares kept read models only up to the position they reached, leaving out documents changed since', async () => {
    const readModels = await builtReadModels();
    const events = await eventStore.readAll();
    const contactUpdate = events.find((event) => event.type === 'ContactUpdated')!;
    // Read models that claim to stand just before the contact's rename.
    const before = events[events.indexOf(contactUpdate) - 1]!.position;
    const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: false, readModelsReached: async () => before });
    expect(report.differences).to.deep.equal([]);
    expect(report.position).to.equal(before);
    // The renamed contact, its deal (the summary moved with it) and everything created later are left out.
    expect(report.skipped).to.be.greaterThan(2);
    expect(report.documents + report.skipped).to.equal(DOCUMENTS);
  });

  it('reports a stored event its codec refuses, naming the stream and the event', async () => {
    const readModels = await builtReadModels();
    const id = newId();
    const { position } = await eventStore.append(
      contactStream(log.contactId),
      [{ id, type: 'ContactUpdated', data: { contactId: log.contactId }, metadata: { source: 'cli', correlationId: 'c' } }],
      'any',
    );
    const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: false });
    expect(report.differences).to.have.length(1);
    expect(describeDifference(report.differences[0]!)).to.match(
      new RegExp(`^log ${contactStream(log.contactId)}: event ${id} \\(ContactUpdated\\) at position ${position} does not decode: .*companyId`),
    );
  });

  it('lists an event this release cannot read (a newer version), with its version, and verifies the rest of the log', async () => {
    const id = newId();
    const { position } = await eventStore.append(
      contactStream(log.contactId),
      [{ id, type: 'ContactUpdated', data: { contactId: log.contactId }, metadata: { source: 'cli', correlationId: 'c', schemaVersion: 9 } }],
      'any',
    );
    const later = newId();
    const createdAt = new Date().toISOString();
    await eventStore.append(
      contactStream(later),
      [{ id: newId(), type: 'ContactCreated', data: { contactId: later, companyId: log.companyId, name: 'Later', phoneNumber: '+449999', tags: [], createdAt }, metadata: { source: 'cli', correlationId: 'c' } }],
      'no_stream',
    );
    const report = await verifyReadModels({
      eventStore: new UpcastingEventStore(eventStore, { types: STORED_EVENT_TYPES }),
      checks: READ_MODEL_CHECKS,
      readModels: new MemoryReadModelStore(),
      rebuild: true,
      batchSize: 4,
    });
    expect(report.differences).to.have.length(1);
    expect(report.differences[0]).to.include({ kind: 'undecodable-event', eventId: id, type: 'ContactUpdated', position, version: 9 });
    expect(describeDifference(report.differences[0]!)).to.match(
      new RegExp(`^log ${contactStream(log.contactId)}: event ${id} \\(ContactUpdated, version 9\\) at position ${position} does not decode: .*newer release`),
    );
    // The contact created after it is verified like the rest.
    expect(report.documents).to.equal(DOCUMENTS + 1);
    expect(report.position).to.equal(await eventStore.headPosition());
  });
});

const postgresUrl = postgresTestUrl();
if (postgresUrl) {
  describe('verifyReadModels on PostgreSQL read models', function () {
    this.timeout(60_000);
    const stores = postgresReadModelStores(postgresUrl);
    let dir: ReturnType<typeof tempDir>;
    let eventStore: SqliteEventStore;
    let log: RealLog;
    let fixture: PostgresReadModelFixture;

    beforeEach(async () => {
      dir = tempDir('chronicle-verify-pg-');
      eventStore = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
      log = await writeRealLog(eventStore);
      fixture = await stores.open();
    });
    afterEach(async () => {
      await fixture.dispose();
      await eventStore.close();
      dir.dispose();
    });
    after(() => stores.dropDatabase());

    it('finds the read models a projector keeps in PostgreSQL equal to the folds of every stream, and names a changed field', async () => {
      const readModels = fixture.store;
      const collections = PROJECTIONS.map((projection) => readModels.collection(projection));
      const runner = new ProjectionRunner({ eventStore, readModels, collections, logger: silentLogger });
      await runner.start();
      await runner.stop();
      const head = await eventStore.headPosition();
      const reached = async () => readModels.checkpoints.load(READ_MODELS_CHECKPOINT);
      const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: false, readModelsReached: reached });
      expect(report.differences).to.deep.equal([]);
      expect(report).to.include({ documents: DOCUMENTS, streams: STREAMS, skipped: 0, position: head });

      const contacts = readModels.collection(contactsProjection);
      const ada = (await contacts.get(log.companyId, log.contactId))!.contact;
      const forged: RecordedEvent = {
        id: newId(),
        stream: 'forged',
        revision: 0,
        position: head!,
        type: 'ContactUpdated',
        data: { contactId: log.contactId, companyId: log.companyId, changes: { name: 'Eve' }, updatedAt: ada.updatedAt, contact: { ...ada, name: 'Eve' } },
        metadata: { source: 'system', correlationId: 'forged', companyId: log.companyId },
        recordedAt: new Date().toISOString(),
      };
      await contacts.apply([forged]);
      const changed = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: false, readModelsReached: reached });
      expect(changed.differences.map(describeDifference)).to.deep.equal([`contacts ${log.companyId}/${log.contactId}: name: log says "Ada Lovelace", read model says "Eve"`]);
    });

    it('finds the read models replayed into PostgreSQL (chronicle replay) equal to the folds of every stream', async () => {
      const readModels = fixture.store;
      const replayed = await replayReadModels({ eventStore, readModels, projections: PROJECTIONS });
      expect(replayed.position).to.equal(await eventStore.headPosition());
      const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: false, readModelsReached: async () => replayed.position });
      expect(report.differences).to.deep.equal([]);
      expect(report.documents).to.equal(DOCUMENTS);
    });
  });
} else {
  skipLine('verifyReadModels on PostgreSQL read models', 'POSTGRES_TEST_URL');
}

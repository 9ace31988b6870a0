import { join } from 'node:path';
import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { CommandDeps } from '../../../src/application/commands/CommandDeps.js';
import type { CompanyErasureCounts } from '../../../src/application/personalData/CompanyDataEraser.js';
import {
  cancelCompanyDeletion,
  companiesProjection,
  createCompany,
  deletionsDue,
  eraseCompany,
  requestCompanyDeletion,
  type CompanyErasureDeps,
} from '../../../src/features/companies/index.js';
import { handleCommand } from '../../../src/application/commands/handleCommand.js';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { companyDecider } from '../../../src/features/companies/domain/companyDecider.js';
import { CompanyEvent } from '../../../src/features/companies/domain/companyEvents.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { manualClock } from '../../support/clocks.js';
import { tempDir } from '../../support/tempStore.js';
import { valid } from '../apiKeys/decode.js';
import { newId } from '../../../src/shared/ids.js';

const COUNTS: CompanyErasureCounts = { contacts: 2, users: 1, apiKeys: 1, webhookSubscriptions: 0, webhookDeliveries: 3, keptResponses: 4, consoleSessions: 0, usageRows: 1 };
const system = () => ({ source: 'system' as const, correlationId: newId() });

describe('eraseCompany', () => {
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  let commands: CommandDeps;
  let forgotten: string[];
  let compacted: number;
  beforeEach(() => {
    dir = tempDir();
    eventStore = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    commands = { eventStore, newId, clock: manualClock(Date.parse('2026-05-01T00:00:00.000Z')) };
    forgotten = [];
    compacted = 0;
  });
  afterEach(async () => {
    await eventStore.close();
    dir.dispose();
  });

  const deps = (readModelsReach: boolean): CompanyErasureDeps => ({
    commands,
    data: {
      forget: async (companyId) => {
        forgotten.push(companyId);
        return COUNTS;
      },
    },
    waitForReadModels: async () => readModelsReach,
    compact: async () => void compacted++,
  });
  const waitingCompany = async (): Promise<string> => {
    const made = await createCompany(commands, { name: valid(CompanyName, 'Acme'), metadata: system() });
    if (E.isLeft(made)) throw new Error('no company');
    const requested = await requestCompanyDeletion(commands, { companyId: made.right.id, retentionMs: 1000, metadata: system() });
    if (E.isLeft(requested)) throw new Error('no deletion');
    return made.right.id;
  };
  const typesOf = async (companyId: string) => (await eventStore.readStream(`company-${companyId}`)).map((event) => event.type);

  it('forgets the company\'s data, records CompanyErased with the counts, and compacts once the read models applied it', async () => {
    const companyId = await waitingCompany();
    const erased = await eraseCompany(deps(true), { companyId, metadata: system() });
    expect(E.isRight(erased) && erased.right).to.deep.include({ id: companyId, erasedAt: '2026-05-01T00:00:00.000Z', counts: COUNTS });
    expect(forgotten).to.deep.equal([companyId]);
    expect(compacted).to.equal(1);
    expect(await typesOf(companyId)).to.deep.equal(['CompanyCreated', 'CompanySuspended', 'CompanyDeletionRequested', 'CompanyErasureStarted', 'CompanyErased']);
    expect((await eventStore.readStream(`company-${companyId}`))[4]!.data).to.deep.equal({ companyId, erasedAt: '2026-05-01T00:00:00.000Z', ...COUNTS });
  });

  it('answers an erased company with its first erasure, doing nothing again', async () => {
    const companyId = await waitingCompany();
    await eraseCompany(deps(true), { companyId, metadata: system() });
    const again = await eraseCompany(deps(true), { companyId, metadata: system() });
    expect(E.isRight(again) && again.right).to.deep.equal({ id: companyId, erasedAt: '2026-05-01T00:00:00.000Z', counts: null, position: null });
    expect(forgotten).to.have.length(1);
    expect(await typesOf(companyId)).to.have.length(5);
  });

  it('finishes an erasure cut short after it started, and the sweep lists it as due whatever its eraseAfter', async () => {
    const companyId = await waitingCompany();
    const cutShort = await handleCommand(commands, {
      decider: companyDecider,
      eventCodec: CompanyEvent,
      stream: `company-${companyId}`,
      command: { type: 'StartCompanyErasure', companyId, at: commands.clock.now() },
      metadata: { ...system(), companyId },
    });
    expect(E.isRight(cutShort)).to.equal(true);
    const readModels = new MemoryReadModelStore();
    await readModels.collection(companiesProjection).apply(await eventStore.readAll());
    // Its eraseAfter (a second after the request) is ahead of this time: listed all the same.
    expect(await deletionsDue(readModels)(new Date('2026-04-01T00:00:00.000Z'), 10)).to.deep.equal([companyId]);
    const cancelled = await cancelCompanyDeletion(commands, { companyId, metadata: system() });
    expect(cancelled).to.deep.equal(E.left({ kind: 'CompanyErasureUnderWay', companyId }));

    const erased = await eraseCompany(deps(true), { companyId, metadata: system() });
    expect(E.isRight(erased) && erased.right.counts).to.deep.equal(COUNTS);
    expect(await typesOf(companyId)).to.deep.equal(['CompanyCreated', 'CompanySuspended', 'CompanyDeletionRequested', 'CompanyErasureStarted', 'CompanyErased']);
    await readModels.collection(companiesProjection).apply(await eventStore.readAll());
    expect(await deletionsDue(readModels)(new Date('2026-06-01T00:00:00.000Z'), 10)).to.deep.equal([]);
  });

  it('erases nothing while the read models stay behind the log (they list what is forgotten)', async () => {
    const companyId = await waitingCompany();
    expect(await eraseCompany(deps(false), { companyId, metadata: system() })).to.deep.equal(E.left({ kind: 'ReadModelsBehind' }));
    expect(forgotten).to.deep.equal([]);
    expect(await typesOf(companyId)).to.deep.equal(['CompanyCreated', 'CompanySuspended', 'CompanyDeletionRequested']);
  });

  it('refuses a company without a waiting deletion, and an unknown one, forgetting nothing', async () => {
    const made = await createCompany(commands, { name: valid(CompanyName, 'Kept'), metadata: system() });
    if (E.isLeft(made)) throw new Error('no company');
    expect(await eraseCompany(deps(true), { companyId: made.right.id, metadata: system() })).to.deep.equal(
      E.left({ kind: 'CompanyDeletionNotRequested', companyId: made.right.id }),
    );
    expect(await eraseCompany(deps(true), { companyId: 'unknown', metadata: system() })).to.deep.equal(E.left({ kind: 'CompanyNotFound', companyId: 'unknown' }));
    expect(forgotten).to.deep.equal([]);
  });
});

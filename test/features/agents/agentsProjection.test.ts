import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { handleCommand } from '../../../src/application/commands/handleCommand.js';
import { UndecodableEventError } from '../../../src/application/versioning/UndecodableEventError.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { DocumentCollection } from '../../../src/application/ports/ReadModelStore.js';
import { agentDecider } from '../../../src/features/agents/domain/agentDecider.js';
import { AgentName } from '../../../src/features/agents/domain/AgentName.js';
import { toAgentView } from '../../../src/features/agents/domain/agentRecord.js';
import type { Agent } from '../../../src/features/agents/domain/agentView.js';
import type { AgentCommand, AgentFieldChanges } from '../../../src/features/agents/domain/agentCommands.js';
import { AgentEvent, agentStream } from '../../../src/features/agents/domain/agentEvents.js';
import { newId } from '../../../src/shared/ids.js';
import { agentListQuery } from '../../../src/features/agents/readModels/agentQueries.js';
import { agentOf, agentsProjection, type AgentDoc } from '../../../src/features/agents/readModels/agentsProjection.js';
import { tempDir } from '../../support/tempStore.js';
import { valid } from '../apiKeys/decode.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

describe('agents projection', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let agents: DocumentCollection<AgentDoc>;
  let applied: RecordedEvent[];

  /** Applies the events appended since the last sync, as the runner would. */
  const sync = async (): Promise<RecordedEvent[]> => {
    const events = await store.readAll({ after: applied.at(-1)?.position ?? null });
    await agents.apply(events);
    applied.push(...events);
    return events;
  };
  const run = async (agentId: string, companyId: string, command: AgentCommand): Promise<Agent> => {
    const outcome = await handleCommand(
      { eventStore: store, newId: newId },
      {
        decider: agentDecider,
        eventCodec: AgentEvent,
        stream: agentStream(agentId),
        command,
        metadata: { source: 'cli', correlationId: newId(), companyId },
      },
    );
    if (E.isLeft(outcome) || outcome.right.state.status !== 'created') return expect.fail(JSON.stringify(outcome));
    return toAgentView(outcome.right.state.agent);
  };
  const create = (name: string, minute: number, fields: Partial<AgentFieldChanges> = {}, companyId = 'co-1'): Promise<Agent> => {
    const agentId = newId();
    return run(agentId, companyId, { type: 'CreateAgent', agentId, companyId, name: valid(AgentName, name), ...fields, at: new Date(iso(minute)) });
  };
  const update = (agentId: string, minute: number, changes: AgentFieldChanges): Promise<Agent> =>
    run(agentId, 'co-1', { type: 'UpdateAgent', agentId, changes, at: new Date(iso(minute)) });
  const list = async (params: Partial<Parameters<typeof agentListQuery>[0]> = {}) => {
    const page = await agents.list(agentListQuery({ companyId: 'co-1', page: 1, limit: 50, ...params }));
    return { names: page.items.map((doc) => agentOf(doc).name), total: page.total };
  };

  beforeEach(() => {
    dir = tempDir('chronicle-agents-projection-');
    store = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
    agents = new MemoryReadModelStore().collection(agentsProjection);
    applied = [];
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  describe('given a created agent', () => {
    it('holds the view the command produced, with the company and the position of its event', async () => {
      const agent = await create('Support bot', 0);
      const [event] = await sync();
      expect(await agents.get('co-1', agent.id)).to.deep.equal({ id: agent.id, companyId: 'co-1', position: event!.position, agent });
      expect(agent).to.deep.equal({
        id: agent.id,
        name: 'Support bot',
        description: null,
        status: 'active',
        channels: ['webchat'],
        language: 'en',
        createdAt: iso(0),
        updatedAt: iso(0),
      });
    });

    it('is not found for another company', async () => {
      const agent = await create('Support bot', 0);
      await sync();
      expect(await agents.get('co-2', agent.id)).to.equal(null);
      expect((await agents.list(agentListQuery({ companyId: 'co-2', page: 1, limit: 50 }))).total).to.equal(0);
    });
  });

  describe('given an updated agent', () => {
    it('holds the view after the update, and changes nothing when the events are applied again', async () => {
      const { id } = await create('Support bot', 0);
      const last = await update(id, 5, { status: 'paused', name: valid(AgentName, 'Sales bot') });
      await sync();
      const doc = await agents.get('co-1', id);
      expect(agentOf(doc!)).to.deep.equal(last);
      expect(last).to.include({ status: 'paused', name: 'Sales bot', createdAt: iso(0), updatedAt: iso(5) });
      await agents.apply(applied);
      expect(await agents.get('co-1', id)).to.equal(doc);
    });

    it('creates no document from an update it has never seen the creation of', async () => {
      const { id } = await create('Support bot', 0);
      await update(id, 1, { status: 'paused' });
      await agents.apply((await store.readAll()).filter((e) => e.type === 'AgentUpdated'));
      expect(await agents.get('co-1', id)).to.equal(null);
    });
  });

  describe('given a stored agent event its codec refuses', () => {
    it('stops with an error naming the event', async () => {
      const metadata = { source: 'cli' as const, correlationId: 'c', companyId: 'co-1' };
      await store.append('agent-x', [{ id: newId(), type: 'AgentCreated', data: { agentId: 'x', status: 'sleeping' }, metadata }], 'no_stream');
      let error: unknown;
      await agents.apply(await store.readAll()).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(UndecodableEventError);
    });
  });

  describe('given several agents', () => {
    beforeEach(async () => {
      await create('First', 0);
      const second = await create('Second', 1);
      await create('Third', 2, { status: 'paused' });
      await create('Elsewhere', 3, {}, 'co-2');
      await update(second.id, 4, { status: 'paused' });
      await sync();
    });

    it('lists them in creation order with the total', async () =>
      expect(await list()).to.deep.equal({ names: ['First', 'Second', 'Third'], total: 3 }));

    it('pages', async () => expect(await list({ page: 2, limit: 2 })).to.deep.equal({ names: ['Third'], total: 3 }));

    it('filters by status, following updates', async () => {
      expect(await list({ status: 'paused' })).to.deep.equal({ names: ['Second', 'Third'], total: 2 });
      expect(await list({ status: 'active' })).to.deep.equal({ names: ['First'], total: 1 });
    });
  });
});

describe('agentListQuery', () => {
  it('builds a typed status filter in creation order', () => {
    expect(agentListQuery({ companyId: 'co-1', status: 'paused', page: 2, limit: 10 })).to.deep.equal({
      companyId: 'co-1',
      filters: [{ op: 'eq', field: 'agent.status', value: 'paused' }],
      page: 2,
      limit: 10,
      order: 'asc',
    });
    expect(agentListQuery({ companyId: 'co-1', page: 1, limit: 50 }).filters).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { handleCommand } from '../../../../src/application/commands/handleCommand.js';
import { agentDecider } from '../../../../src/features/agents/domain/agentDecider.js';
import { AgentChannels } from '../../../../src/features/agents/domain/AgentChannel.js';
import { AgentDescription } from '../../../../src/features/agents/domain/AgentDescription.js';
import { AgentName } from '../../../../src/features/agents/domain/AgentName.js';
import type { AgentStatus } from '../../../../src/features/agents/domain/AgentStatus.js';
import type { AgentCommand } from '../../../../src/features/agents/domain/agentCommands.js';
import { AgentEvent, agentStream } from '../../../../src/features/agents/domain/agentEvents.js';
import { LanguageTag } from '../../../../src/features/agents/domain/LanguageTag.js';
import { newId } from '../../../../src/shared/ids.js';
import { SPECIFICATION_PERMISSIONS } from '../../../../src/shared/permissions.js';
import { startHarness, type Harness } from '../../../support/httpHarness.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const valid = <A>(codec: { decode(u: unknown): E.Either<unknown, A> }, input: unknown): A => {
  const decoded = codec.decode(input);
  if (E.isLeft(decoded)) throw new Error(`test input ${JSON.stringify(input)} does not decode`);
  return decoded.right;
};

interface AgentInput {
  readonly name: string;
  readonly description?: string;
  readonly channels?: string[];
  readonly language?: string;
  readonly status?: AgentStatus;
}

describe('HTTP: agents', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness()));
  after(() => api.close());

  /** Runs an agent command on the harness's event store and waits until the read models have applied it. */
  const run = async (agentId: string, companyId: string, command: AgentCommand): Promise<void> => {
    const outcome = await handleCommand(
      { eventStore: api.chronicle.stores.eventStore, newId: newId },
      {
        decider: agentDecider,
        eventCodec: AgentEvent,
        stream: agentStream(agentId),
        command,
        metadata: { source: 'cli', correlationId: newId(), companyId },
      },
    );
    if (E.isLeft(outcome)) throw new Error(JSON.stringify(outcome.left));
    const { position } = outcome.right;
    if (position !== null) expect(await api.chronicle.projections!.waitFor(position, 5000)).to.equal(true);
  };

  const createAgent = async (input: AgentInput, companyId = api.companyId): Promise<string> => {
    const agentId = newId();
    await run(agentId, companyId, {
      type: 'CreateAgent',
      agentId,
      companyId,
      name: valid(AgentName, input.name),
      ...(input.description !== undefined ? { description: valid(AgentDescription, input.description) } : {}),
      ...(input.channels !== undefined ? { channels: valid(AgentChannels, input.channels) } : {}),
      ...(input.language !== undefined ? { language: valid(LanguageTag, input.language) } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      at: new Date(),
    });
    return agentId;
  };

  describe('GET /agents/:id', () => {
    it('answers the agent with every field', async () => {
      const id = await createAgent({ name: 'Support bot', description: 'Answers order questions', channels: ['webchat', 'whatsapp'], language: 'de-de' });
      const res = await api.request('GET', `/agents/${id}`);
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      const agent = res.body.data;
      expect(Object.keys(agent)).to.deep.equal(['id', 'name', 'description', 'status', 'channels', 'language', 'createdAt', 'updatedAt']);
      expect(agent).to.deep.include({
        id,
        name: 'Support bot',
        description: 'Answers order questions',
        status: 'active',
        channels: ['whatsapp', 'webchat'],
        language: 'de-DE',
      });
      expect(agent.createdAt).to.match(ISO_MS);
      expect(agent.updatedAt).to.equal(agent.createdAt);
    });

    it('shows the defaults and a later update', async () => {
      const id = await createAgent({ name: 'Defaults' });
      const created = (await api.request('GET', `/agents/${id}`)).body.data;
      expect(created).to.deep.include({ description: null, status: 'active', channels: ['webchat'], language: 'en' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await run(id, api.companyId, { type: 'UpdateAgent', agentId: id, changes: { status: 'paused' }, at: new Date() });
      const updated = (await api.request('GET', `/agents/${id}`)).body.data;
      expect(updated).to.deep.include({ status: 'paused', createdAt: created.createdAt });
      expect(updated.updatedAt > created.updatedAt).to.equal(true);
    });

    it('answers 404 "Agent not found" for an unknown id', async () => {
      const res = await api.request('GET', '/agents/01900000-0000-7000-8000-000000000000');
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ success: false, error: 'Agent not found', message: 'No agent with this id exists in your company.' });
    });

    it('answers another company’s agent exactly as an unknown id (404, never 403)', async () => {
      const other = await api.newCompany('Agent owner');
      const theirs = await createAgent({ name: 'Secret agent' }, other.companyId);
      const res = await api.request('GET', `/agents/${theirs}`);
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal('Agent not found');
      expect((await api.request('GET', `/agents/${theirs}`, { key: other.key })).status).to.equal(200);
    });
  });

  describe('GET /agents', () => {
    let other: { companyId: string; key: string };
    let ids: string[];
    before(async () => {
      other = await api.newCompany('Agent list company');
      ids = [];
      for (let i = 1; i <= 7; i++) {
        ids.push(await createAgent({ name: `Agent ${i}`, ...(i % 3 === 0 ? { status: 'paused' as const } : {}) }, other.companyId));
      }
    });

    it('lists in creation order with meta', async () => {
      const res = await api.request('GET', '/agents?limit=3&page=2', { key: other.key });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.meta).to.deep.equal({ page: 2, limit: 3, total: 7, totalPages: 3 });
      expect(res.body.data.map((a: { id: string }) => a.id)).to.deep.equal(ids.slice(3, 6));
    });

    it('defaults to page 1 and limit 50, and answers an empty page past the end', async () => {
      const res = await api.request('GET', '/agents', { key: other.key });
      expect(res.body.meta).to.deep.equal({ page: 1, limit: 50, total: 7, totalPages: 1 });
      expect(res.body.data.map((a: { name: string }) => a.name)).to.deep.equal(['Agent 1', 'Agent 2', 'Agent 3', 'Agent 4', 'Agent 5', 'Agent 6', 'Agent 7']);
      const past = await api.request('GET', '/agents?page=3&limit=5', { key: other.key });
      expect(past.body.data).to.deep.equal([]);
      expect(past.body.meta).to.deep.equal({ page: 3, limit: 5, total: 7, totalPages: 2 });
    });

    it('filters by status', async () => {
      const paused = await api.request('GET', '/agents?status=paused', { key: other.key });
      expect(paused.status).to.equal(200);
      expect(paused.body.data.map((a: { name: string }) => a.name)).to.deep.equal(['Agent 3', 'Agent 6']);
      expect(paused.body.meta.total).to.equal(2);
      const active = await api.request('GET', '/agents?status=active&limit=2', { key: other.key });
      expect(active.body.data.map((a: { name: string }) => a.name)).to.deep.equal(['Agent 1', 'Agent 2']);
      expect(active.body.meta).to.deep.equal({ page: 1, limit: 2, total: 5, totalPages: 3 });
    });

    it('answers 422 naming each bad parameter', async () => {
      const res = await api.request('GET', '/agents?status=sleeping&limit=201&page=0', { key: other.key });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.equal('Validation failed');
      expect(res.body.details).to.have.all.keys('status', 'limit', 'page');
      expect(res.body.details.status).to.equal('status must be one of active, paused');
      const status = await api.request('GET', '/agents?status=ACTIVE', { key: other.key });
      expect(status.status).to.equal(422);
      expect(status.body.details).to.have.all.keys('status');
      expect((await api.request('GET', '/agents?limit=abc', { key: other.key })).body.details).to.have.all.keys('limit');
      expect((await api.request('GET', '/agents?status=active&status=paused', { key: other.key })).status).to.equal(422);
    });

    it('never lists another company’s agents', async () => {
      const theirs = await api.request('GET', '/agents?limit=200', { key: other.key });
      const mine = await api.request('GET', '/agents?limit=200');
      const mineIds = new Set(mine.body.data.map((a: { id: string }) => a.id));
      for (const agent of theirs.body.data) expect(mineIds.has(agent.id)).to.equal(false);
      const fresh = await api.newCompany('No agents');
      const empty = await api.request('GET', '/agents', { key: fresh.key });
      expect(empty.body).to.deep.equal({ success: true, data: [], meta: { page: 1, limit: 50, total: 0, totalPages: 0 } });
    });
  });

  describe('permissions', () => {
    it('answers 403 without agents:read, on the list and on one agent', async () => {
      const id = await createAgent({ name: 'Guarded' });
      const { key } = await api.issueKey(api.companyId, SPECIFICATION_PERMISSIONS.filter((p) => p !== 'agents:read'));
      for (const path of ['/agents', `/agents/${id}`]) {
        const res = await api.request('GET', path, { key });
        expect(res.status, path).to.equal(403);
        expect(res.body).to.include({ success: false, error: 'Permission denied: agents:read required', requiredPermission: 'agents:read' });
        expect(res.body.availablePermissions).to.not.include('agents:read');
      }
    });

    it('needs nothing but agents:read', async () => {
      const { key } = await api.issueKey(api.companyId, ['agents:read']);
      expect((await api.request('GET', '/agents', { key })).status).to.equal(200);
    });

    it('answers 401 without a key', async () => {
      expect((await api.request('GET', '/agents', { key: null })).status).to.equal(401);
    });
  });
});

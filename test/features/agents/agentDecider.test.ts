import { agentDecider } from '../../../src/features/agents/domain/agentDecider.js';
import { AgentChannels } from '../../../src/features/agents/domain/AgentChannel.js';
import { AgentDescription } from '../../../src/features/agents/domain/AgentDescription.js';
import { AgentName } from '../../../src/features/agents/domain/AgentName.js';
import type { AgentFieldChanges, CreateAgent } from '../../../src/features/agents/domain/agentCommands.js';
import type { AgentCreated, AgentUpdated } from '../../../src/features/agents/domain/agentEvents.js';
import { LanguageTag } from '../../../src/features/agents/domain/LanguageTag.js';
import { specFor } from '../../support/givenWhenThen.js';
import { valid } from '../apiKeys/decode.js';

const spec = specFor(agentDecider);
const T0 = '2026-03-01T10:00:00.000Z';
const T1 = '2026-03-01T11:00:00.000Z';

const created: AgentCreated = {
  type: 'AgentCreated',
  data: {
    agentId: 'a-1',
    companyId: 'co-1',
    name: 'Support bot',
    description: 'Answers questions about orders',
    status: 'active',
    channels: ['whatsapp', 'webchat'],
    language: 'de-DE',
    createdAt: T0,
  },
};

const create = (fields: Partial<CreateAgent> = {}): CreateAgent => ({
  type: 'CreateAgent',
  agentId: 'a-1',
  companyId: 'co-1',
  name: valid(AgentName, 'Support bot'),
  at: new Date(T0),
  ...fields,
});

const update = (changes: AgentFieldChanges) => ({ type: 'UpdateAgent', agentId: 'a-1', changes, at: new Date(T1) }) as const;

const updated = (changes: AgentUpdated['data']['changes']): AgentUpdated => ({
  type: 'AgentUpdated',
  data: { agentId: 'a-1', companyId: 'co-1', changes, updatedAt: T1 },
});

describe('agent decider', () => {
  describe('given no agent', () => {
    it('creates it with every field it was given', () =>
      spec
        .given()
        .when(
          create({
            description: valid(AgentDescription, ' Answers questions about orders '),
            status: 'active',
            channels: valid(AgentChannels, ['webchat', 'whatsapp']),
            language: valid(LanguageTag, 'de-de'),
          }),
        )
        .then(created));

    it('creates it with the defaults: no description, active, webchat, en', () =>
      spec
        .given()
        .when(create())
        .then({
          type: 'AgentCreated',
          data: {
            agentId: 'a-1',
            companyId: 'co-1',
            name: 'Support bot',
            description: null,
            status: 'active',
            channels: ['webchat'],
            language: 'en',
            createdAt: T0,
          },
        }));

    it('creates a paused agent', () =>
      spec
        .given()
        .when(create({ status: 'paused' }))
        .then({ ...created, data: { ...created.data, description: null, status: 'paused', channels: ['webchat'], language: 'en' } }));

    it('refuses an update: not found', () =>
      spec.given().when(update({ status: 'paused' })).thenError({ kind: 'AgentNotFound', agentId: 'a-1' }));
  });

  describe('given an agent', () => {
    it('refuses to create it again', () => spec.given(created).when(create()).thenError({ kind: 'AgentAlreadyExists', agentId: 'a-1' }));

    it('records only the fields that changed', () =>
      spec
        .given(created)
        .when(
          update({
            name: valid(AgentName, 'Sales bot'),
            status: 'active',
            channels: valid(AgentChannels, ['sms', 'voice']),
            language: valid(LanguageTag, 'de-DE'),
          }),
        )
        .then(updated({ name: 'Sales bot', channels: ['sms', 'voice'] })));

    it('clears the description', () =>
      spec.given(created).when(update({ description: valid(AgentDescription, '') })).then(updated({ description: null })));

    it('pauses it', () => spec.given(created).when(update({ status: 'paused' })).then(updated({ status: 'paused' })));

    it('emits nothing when every value equals the current one (channels compared as a set)', () =>
      spec
        .given(created)
        .when(
          update({
            name: valid(AgentName, 'Support bot'),
            description: valid(AgentDescription, 'Answers questions about orders'),
            status: 'active',
            channels: valid(AgentChannels, ['webchat', 'whatsapp', 'webchat']),
            language: valid(LanguageTag, 'DE-de'),
          }),
        )
        .then());

    it('emits nothing for an empty change', () => spec.given(created).when(update({})).then());
  });

  describe('given an updated agent', () => {
    const paused = updated({ status: 'paused', language: 'fr' });

    it('compares with the values after the update', () =>
      spec
        .given(created, paused)
        .when(update({ status: 'paused', language: valid(LanguageTag, 'fr') }))
        .then());

    it('resumes it', () => spec.given(created, paused).when(update({ status: 'active' })).then(updated({ status: 'active' })));
  });
});

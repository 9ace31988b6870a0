import type * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { validateChangeBody, validateCreateBody } from '../../../shared/bodyInput.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { AgentChannels } from './AgentChannel.js';
import { AgentDescription } from './AgentDescription.js';
import { AgentName } from './AgentName.js';
import { AgentStatusInput } from './AgentStatus.js';
import { LanguageTag } from './LanguageTag.js';

/** The fields of an agent a request may set; absent: the default (create) or unchanged (update). */
const agentFields = {
  name: AgentName,
  description: AgentDescription,
  channels: AgentChannels,
  language: LanguageTag,
  status: AgentStatusInput,
};

/** POST /admin/companies/:id/agents (unknown fields ignored). */
export const CreateAgentBody = t.exact(t.intersection([t.type({ name: AgentName }), t.partial(agentFields)]));
export type CreateAgentFields = t.TypeOf<typeof CreateAgentBody>;

/** PATCH /admin/companies/:id/agents/:agentId: any of the fields; `description` null or "" clears it. */
export const UpdateAgentBody = t.exact(t.partial(agentFields));
export type UpdateAgentFields = t.TypeOf<typeof UpdateAgentBody>;

export const validateCreateAgent = (body: unknown): E.Either<InputProblem, CreateAgentFields> => validateCreateBody(CreateAgentBody, ['name'], body);

export const validateUpdateAgent = (body: unknown): E.Either<InputProblem, UpdateAgentFields> =>
  validateChangeBody(UpdateAgentBody, Object.keys(agentFields), body);

import * as E from 'fp-ts/lib/Either.js';
import type { CreateAgent } from '../domain/agentCommands.js';
import { agentDecider } from '../domain/agentDecider.js';
import type { AgentError } from '../domain/agentErrors.js';
import { AgentEvent, agentStream } from '../domain/agentEvents.js';
import type { AgentRecord } from '../domain/agentRecord.js';
import type { CompanyNotFound } from '../../companies/index.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { loadCompany } from '../../companies/index.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';

export type AgentFields = Omit<CreateAgent, 'type' | 'agentId' | 'companyId' | 'at'>;

/** Creates an AI agent with a new id in an existing company (absent fields take the defaults). */
export const createAgent = async (
  deps: CommandDeps,
  input: { readonly companyId: string; readonly fields: AgentFields; readonly metadata: WriteMetadata },
): Promise<E.Either<AgentError | CompanyNotFound, { readonly agent: AgentRecord; readonly position: Position | null }>> => {
  const { companyId } = input;
  if ((await loadCompany(deps.eventStore, companyId)) === null) return E.left({ kind: 'CompanyNotFound', companyId });
  const agentId = deps.newId();
  const outcome = await handleCommand(deps, {
    decider: agentDecider,
    eventCodec: AgentEvent,
    stream: agentStream(agentId),
    command: { type: 'CreateAgent', agentId, companyId, ...input.fields, at: deps.clock.now() },
    metadata: { ...input.metadata, companyId },
  });
  if (E.isLeft(outcome)) return outcome;
  const { state, position } = outcome.right;
  if (state.status !== 'created') throw new Error('CreateAgent recorded no agent');
  return E.right({ agent: state.agent, position });
};

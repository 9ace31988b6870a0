import * as E from 'fp-ts/lib/Either.js';
import type { AgentFieldChanges } from '../domain/agentCommands.js';
import { agentDecider } from '../domain/agentDecider.js';
import type { AgentError } from '../domain/agentErrors.js';
import { AgentEvent, agentStream } from '../domain/agentEvents.js';
import type { AgentRecord } from '../domain/agentRecord.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';

export interface UpdatedAgent {
  readonly agent: AgentRecord;
  /** The fields that changed (none: nothing was recorded). */
  readonly changed: readonly string[];
  readonly position: Position | null;
}

/**
 * Changes some fields of an agent; the others keep their values. Values equal to
 * the current ones record nothing. With `companyId`, an agent of another company
 * is not found (an agent's company never changes, so looking first cannot race the change).
 */
export const updateAgent = async (
  deps: CommandDeps,
  input: { readonly agentId: string; readonly companyId?: string; readonly changes: AgentFieldChanges; readonly metadata: WriteMetadata },
): Promise<E.Either<AgentError, UpdatedAgent>> => {
  const { agentId } = input;
  if (input.companyId !== undefined) {
    const { state } = await loadAggregate(deps.eventStore, agentStream(agentId), { eventCodec: AgentEvent, decider: agentDecider });
    if (state.status !== 'created' || state.agent.companyId !== input.companyId) return E.left({ kind: 'AgentNotFound', agentId });
  }
  const outcome = await handleCommand(deps, {
    decider: agentDecider,
    eventCodec: AgentEvent,
    stream: agentStream(agentId),
    command: { type: 'UpdateAgent', agentId, changes: input.changes, at: deps.clock.now() },
    // The events belong to the agent's company, which only its stream knows.
    metadata: (state) => ({ ...input.metadata, ...(state.status === 'created' ? { companyId: state.agent.companyId } : {}) }),
  });
  if (E.isLeft(outcome)) return outcome;
  const { state, events, position } = outcome.right;
  if (state.status !== 'created') return E.left({ kind: 'AgentNotFound', agentId });
  const [updated] = events;
  const changed = updated?.type === 'AgentUpdated' ? Object.keys(updated.data.changes) : [];
  return E.right({ agent: state.agent, changed, position });
};

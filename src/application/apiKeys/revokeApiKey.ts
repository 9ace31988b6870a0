import * as E from 'fp-ts/lib/Either.js';
import { apiKeyDecider } from '../../domain/apiKeys/apiKeyDecider.js';
import type { ApiKeyError } from '../../domain/apiKeys/apiKeyErrors.js';
import { ApiKeyEvent, apiKeyStream } from '../../domain/apiKeys/apiKeyEvents.js';
import type { EventSource } from '../../shared/EventMetadata.js';
import type { Position } from '../../shared/Position.js';
import { handleCommand } from '../handleCommand.js';
import type { ApiKeyCommandDeps } from './issueApiKey.js';

export interface RevokeApiKeyInput {
  readonly keyId: string;
  readonly at: Date;
  readonly source: EventSource;
  readonly correlationId: string;
}

export interface RevokedApiKey {
  readonly keyId: string;
  readonly companyId: string;
  readonly revokedAt: string;
  readonly position: Position | null;
}

/**
 * Revokes a key. The event's metadata names the key's company, which only the
 * stream knows: the first read finds it (a key never changes company), then the
 * command runs as usual (read, decide, append with the revision read).
 */
export const revokeApiKey = async (
  deps: ApiKeyCommandDeps,
  input: RevokeApiKeyInput,
): Promise<E.Either<ApiKeyError, RevokedApiKey>> => {
  const stream = apiKeyStream(input.keyId);
  const [first] = await deps.eventStore.readStream(stream, { maxCount: 1 });
  const issued = first ? ApiKeyEvent.decode({ type: first.type, data: first.data }) : null;
  if (!issued || E.isLeft(issued)) return E.left({ kind: 'ApiKeyNotFound', keyId: input.keyId });
  const companyId = issued.right.data.companyId;

  const outcome = await handleCommand(
    { eventStore: deps.eventStore, newId: deps.newId },
    {
      decider: apiKeyDecider,
      eventCodec: ApiKeyEvent,
      stream,
      command: { type: 'RevokeApiKey', keyId: input.keyId, at: input.at },
      metadata: { source: input.source, correlationId: input.correlationId, companyId },
    },
  );
  if (E.isLeft(outcome)) return outcome;
  const { state } = outcome.right;
  if (state.status !== 'revoked') throw new Error('RevokeApiKey left the key unrevoked');
  return E.right({ keyId: input.keyId, companyId: state.companyId, revokedAt: state.revokedAt, position: outcome.right.position });
};

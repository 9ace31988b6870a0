import * as E from 'fp-ts/lib/Either.js';
import { apiKeyDecider } from '../domain/apiKeyDecider.js';
import type { ApiKeyError } from '../domain/apiKeyErrors.js';
import type { ApiKeyName } from '../domain/ApiKeyName.js';
import { ApiKeyEvent, apiKeyStream } from '../domain/apiKeyEvents.js';
import { generateApiKey, hashApiKey, keyHint } from '../../../shared/apiKeyFormat.js';
import type { Position } from '../../../shared/Position.js';
import type { ApiKeyType, Permission } from '../../../shared/permissions.js';
import type { CompanyNotFound } from '../../companies/index.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { loadCompany } from '../../companies/index.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';

export interface IssueApiKeyInput {
  readonly companyId: string;
  /** The key's label; null or absent: none. */
  readonly name?: ApiKeyName | null;
  readonly type: ApiKeyType;
  readonly permissions: readonly Permission[];
  readonly expiresAt: Date | null;
  readonly metadata: WriteMetadata;
}

export interface IssuedApiKey {
  readonly keyId: string;
  /** The key itself: hand it to the caller once; it is stored nowhere. */
  readonly key: string;
  readonly companyId: string;
  readonly name: string | null;
  readonly type: ApiKeyType;
  readonly permissions: readonly Permission[];
  readonly expiresAt: string | null;
  readonly keyHint: string;
  readonly createdAt: string;
  readonly position: Position | null;
}

/** Generates a key for an existing company and records its hash and hint in a new `apikey-<id>` stream. */
export const issueApiKey = async (
  deps: CommandDeps,
  input: IssueApiKeyInput,
): Promise<E.Either<ApiKeyError | CompanyNotFound, IssuedApiKey>> => {
  const { companyId } = input;
  if ((await loadCompany(deps.eventStore, companyId)) === null) return E.left({ kind: 'CompanyNotFound', companyId });
  const keyId = deps.newId();
  const key = generateApiKey();
  const outcome = await handleCommand(
    deps,
    {
      decider: apiKeyDecider,
      eventCodec: ApiKeyEvent,
      stream: apiKeyStream(keyId),
      command: {
        type: 'IssueApiKey',
        keyId,
        companyId: input.companyId,
        name: input.name ?? null,
        keyType: input.type,
        permissions: input.permissions,
        expiresAt: input.expiresAt,
        keyHash: hashApiKey(key),
        keyHint: keyHint(key),
        at: deps.clock.now(),
      },
      metadata: { ...input.metadata, companyId },
    },
  );
  if (E.isLeft(outcome)) return outcome;
  const issued = outcome.right.events.find((event) => event.type === 'ApiKeyIssued');
  if (!issued || issued.type !== 'ApiKeyIssued') throw new Error('IssueApiKey recorded no ApiKeyIssued event');
  const { data } = issued;
  return E.right({
    keyId,
    key,
    companyId: data.companyId,
    name: data.name,
    type: data.type,
    permissions: data.permissions,
    expiresAt: data.expiresAt,
    keyHint: data.keyHint,
    createdAt: data.createdAt,
    position: outcome.right.position,
  });
};

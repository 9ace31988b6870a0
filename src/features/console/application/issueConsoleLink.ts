import * as E from 'fp-ts/lib/Either.js';
import { CONSOLE_LINK_MAX_MINUTES, consoleLinkDecider } from '../domain/consoleLinkDecider.js';
import type { ConsoleLinkError } from '../domain/consoleLinkErrors.js';
import { ConsoleLinkEvent, consoleLinkStream } from '../domain/consoleLinkEvents.js';
import type { CompanyIsSuspended, CompanyNotFound } from '../../companies/index.js';
import { formatConsoleToken, hashConsoleSecret, newConsoleSecret } from '../../../shared/consoleTokens.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';
import { loadCompany } from '../../companies/index.js';

export interface IssuedConsoleLink {
  readonly linkId: string;
  readonly companyId: string;
  /** `<linkId>.<secret>`: hand it to the caller once; only the secret's hash is stored. */
  readonly token: string;
  readonly expiresAt: string;
  readonly position: Position | null;
}

/** How long a link is valid by default: the most allowed. */
export const CONSOLE_LINK_VALIDITY_MS = CONSOLE_LINK_MAX_MINUTES * 60_000;

/**
 * Issues a single-use link into the console for an existing company that is not
 * suspended (`CompanyIsSuspended` otherwise), valid for
 * `validForMs` (at most 15 minutes): a `ConsoleLinkIssued` in a new
 * `consolelink-<id>` stream holding the hash of the link's secret.
 */
export const issueConsoleLink = async (
  deps: CommandDeps,
  input: { readonly companyId: string; readonly metadata: WriteMetadata; readonly validForMs?: number },
): Promise<E.Either<ConsoleLinkError | CompanyNotFound | CompanyIsSuspended, IssuedConsoleLink>> => {
  const { companyId } = input;
  const company = await loadCompany(deps.eventStore, companyId);
  if (company === null) return E.left({ kind: 'CompanyNotFound', companyId });
  if (company.suspension !== null) return E.left({ kind: 'CompanyIsSuspended', companyId });
  const linkId = deps.newId();
  const secret = newConsoleSecret();
  const at = deps.clock.now();
  const outcome = await handleCommand(deps, {
    decider: consoleLinkDecider,
    eventCodec: ConsoleLinkEvent,
    stream: consoleLinkStream(linkId),
    newStream: true,
    command: {
      type: 'IssueConsoleLink',
      linkId,
      companyId,
      tokenHash: hashConsoleSecret(secret),
      at,
      expiresAt: new Date(at.getTime() + (input.validForMs ?? CONSOLE_LINK_VALIDITY_MS)),
    },
    metadata: { ...input.metadata, companyId },
  });
  if (E.isLeft(outcome)) return outcome;
  const issued = outcome.right.events[0];
  if (issued?.type !== 'ConsoleLinkIssued') throw new Error('IssueConsoleLink recorded no ConsoleLinkIssued event');
  return E.right({
    linkId,
    companyId,
    token: formatConsoleToken({ id: linkId, secret }),
    expiresAt: issued.data.expiresAt,
    position: outcome.right.position,
  });
};

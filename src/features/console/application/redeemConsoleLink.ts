import * as E from 'fp-ts/lib/Either.js';
import { consoleLinkDecider } from '../domain/consoleLinkDecider.js';
import type { ConsoleLinkError } from '../domain/consoleLinkErrors.js';
import { ConsoleLinkEvent, consoleLinkStream } from '../domain/consoleLinkEvents.js';
import { formatConsoleToken, hashConsoleSecret, newConsoleSecret, parseConsoleToken } from '../../../shared/consoleTokens.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import type { ConsoleSessionStore } from '../../../application/ports/ConsoleSessionStore.js';
import type { EventStore } from '../../../application/ports/EventStore.js';
import type { ConsoleSessionSettings } from '../../../application/consoleSessions/ConsoleSessionSettings.js';

export interface OpenedConsoleSession {
  readonly sessionId: string;
  readonly companyId: string;
  /** `<sessionId>.<secret>`: the cookie's value, given to the browser once; only the secret's hash is stored. */
  readonly cookie: string;
  /** The absolute end of the session. */
  readonly expiresAt: Date;
}

/** Ended sessions deleted at each use of a link, at most this many. */
const PRUNE_BATCH = 100;

/**
 * What a link would do if used now, without using it (the page a GET shows):
 * the company it opens, or why it opens nothing.
 */
export const checkConsoleLink = async (
  eventStore: Pick<EventStore, 'readStream'>,
  token: unknown,
  now: Date,
): Promise<E.Either<ConsoleLinkError, { readonly companyId: string }>> => {
  const parsed = parseConsoleToken(token);
  if (!parsed) return E.left({ kind: 'ConsoleLinkNotFound' });
  const { state } = await loadAggregate(eventStore, consoleLinkStream(parsed.id), { eventCodec: ConsoleLinkEvent, decider: consoleLinkDecider });
  const decided = consoleLinkDecider.decide(
    { type: 'RedeemConsoleLink', linkId: parsed.id, tokenHash: hashConsoleSecret(parsed.secret), sessionId: '', at: now },
    state,
  );
  if (E.isLeft(decided)) return E.left(decided.left);
  return state.status === 'issued' ? E.right({ companyId: state.companyId }) : E.left({ kind: 'ConsoleLinkNotFound' });
};

/**
 * Uses a link: records `ConsoleLinkRedeemed` with the revision of its issue (so
 * of two uses at once, in any processes, one wins and the other is told the link
 * was used), then opens the session it names, recording the admin token whose
 * link it was (revoking that token ends the session). The event comes first: a
 * link is never good for two sessions, even if opening the session then fails
 * (the customer asks for another link).
 */
export const redeemConsoleLink = async (
  deps: CommandDeps & { readonly sessions: ConsoleSessionStore },
  input: { readonly token: unknown; readonly settings: ConsoleSessionSettings; readonly correlationId: string },
): Promise<E.Either<ConsoleLinkError, OpenedConsoleSession>> => {
  const parsed = parseConsoleToken(input.token);
  if (!parsed) return E.left({ kind: 'ConsoleLinkNotFound' });
  const sessionId = deps.newId();
  const at = deps.clock.now();
  const outcome = await handleCommand(deps, {
    decider: consoleLinkDecider,
    eventCodec: ConsoleLinkEvent,
    stream: consoleLinkStream(parsed.id),
    command: { type: 'RedeemConsoleLink', linkId: parsed.id, tokenHash: hashConsoleSecret(parsed.secret), sessionId, at },
    metadata: (state) => ({
      source: 'console',
      correlationId: input.correlationId,
      sessionId,
      ...(state.status === 'none' ? {} : { companyId: state.companyId }),
    }),
  });
  if (E.isLeft(outcome)) return outcome;
  const { state } = outcome.right;
  if (state.status !== 'redeemed') throw new Error('RedeemConsoleLink left the link unused');
  const secret = newConsoleSecret();
  const expiresAt = new Date(at.getTime() + input.settings.maxMs);
  // The admin token that asked for the link (none for the CLI's): revoking it ends the session.
  const [issued] = await deps.eventStore.readStream(consoleLinkStream(parsed.id));
  await deps.sessions.prune(at, PRUNE_BATCH);
  await deps.sessions.open({
    sessionId,
    companyId: state.companyId,
    adminTokenId: issued?.metadata.adminTokenId ?? null,
    secretHash: hashConsoleSecret(secret),
    createdAt: at,
    expiresAt,
    idleExpiresAt: new Date(Math.min(at.getTime() + input.settings.idleMs, expiresAt.getTime())),
  });
  return E.right({ sessionId, companyId: state.companyId, cookie: formatConsoleToken({ id: sessionId, secret }), expiresAt });
};
export type { ConsoleLinkError } from '../domain/consoleLinkErrors.js';

import * as E from 'fp-ts/lib/Either.js';
import { webhookDecider } from '../domain/webhookDecider.js';
import type { WebhookError } from '../domain/webhookErrors.js';
import { WebhookEvent, webhookStream } from '../domain/webhookEvents.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { KeyedLock } from '../../../shared/keyedLock.js';
import { decodeSigningSecrets, encodeRotatedSecrets } from '../../../shared/webhookSecret.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WebhookSecretStore } from '../../../application/ports/WebhookSecretStore.js';

export interface RotateSecretDeps extends CommandDeps {
  readonly secrets: Pick<WebhookSecretStore, 'get' | 'put'>;
}

export interface RotatedSecret {
  /** The new secret: shown once, to whoever rotated it. */
  readonly secret: string;
  /** When the previous secret stops signing (ISO 8601 UTC). */
  readonly previousSecretExpiresAt: string;
  readonly position: Position | null;
}

/** One rotation of a subscription at a time in this process: the second reads what the first stored. */
const rotations = new KeyedLock();

/**
 * Rotates the signing secret of an active subscription of the company, as Standard
 * Webhooks defines it: `secret` signs every delivery from now on, and the secret it
 * replaces signs them too (a second signature) for `overlapHours`, so receivers can
 * move to the new one without dropping a delivery. The log records the rotation
 * (`WebhookSecretRotated`, no secret in it), then the secret store keeps both secrets.
 * Left: unknown, another company's, or ended.
 */
export const rotateWebhookSecret = (
  deps: RotateSecretDeps,
  input: {
    readonly subscriptionId: string;
    readonly companyId: string;
    readonly overlapHours: number;
    readonly secret: string;
    readonly metadata: EventMetadata;
  },
): Promise<E.Either<WebhookError, RotatedSecret>> =>
  rotations.run(input.subscriptionId, async () => {
    const { subscriptionId, companyId, overlapHours } = input;
    const at = deps.clock.now();
    const previousSecretExpiresAt = new Date(at.getTime() + overlapHours * 3_600_000);
    const outcome = await handleCommand(deps, {
      decider: webhookDecider,
      eventCodec: WebhookEvent,
      stream: webhookStream(subscriptionId),
      command: { type: 'RotateWebhookSecret', subscriptionId, companyId, overlapHours, previousSecretExpiresAt, at },
      metadata: input.metadata,
    });
    if (E.isLeft(outcome)) return outcome;
    const stored = await deps.secrets.get(subscriptionId);
    const current = stored === null ? null : decodeSigningSecrets(stored).current;
    const previous = current !== null && overlapHours > 0 ? { secret: current, expiresAt: toIsoTimestamp(previousSecretExpiresAt) } : null;
    await deps.secrets.put(subscriptionId, encodeRotatedSecrets(input.secret, previous));
    return E.right({ secret: input.secret, previousSecretExpiresAt: toIsoTimestamp(previousSecretExpiresAt), position: outcome.right.position });
  });

import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import { webhookDecider } from '../domain/webhookDecider.js';
import { WebhookEvent, webhookStream } from '../domain/webhookEvents.js';

/** Whether a stream is a webhook subscription's (`webhook-<id>`). */
export const isWebhookStream = (stream: string): boolean => stream.startsWith(webhookStream(''));

/**
 * Ends the subscriptions that came in with an imported company (`WebhookEndedByImport`,
 * recorded by the system): the export holds no signing secret, so none can be
 * signed for. One ended before the export stays as it is. Answers how many it ended.
 */
export const endImportedWebhooks = async (deps: CommandDeps, streams: readonly string[], companyId: string, at: Date, correlationId: string): Promise<number> => {
  let ended = 0;
  const metadata: EventMetadata = { source: 'system', correlationId, companyId };
  for (const stream of streams) {
    const subscriptionId = stream.slice(webhookStream('').length);
    const outcome = await handleCommand(deps, {
      decider: webhookDecider,
      eventCodec: WebhookEvent,
      stream: webhookStream(subscriptionId),
      command: { type: 'EndImportedWebhook', subscriptionId, companyId, at },
      metadata,
    });
    if (E.isLeft(outcome)) throw new Error(`the imported subscription ${subscriptionId} could not be ended: ${outcome.left.kind}`);
    if (outcome.right.position !== null) ended += 1;
  }
  return ended;
};

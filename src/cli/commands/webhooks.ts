import { ConfigError, loadConfig } from '../../config.js';
import { resetWebhookFanOutGroup } from '../../startup/adapters.js';
import { print, type RegisterCommands } from '../CliContext.js';

/**
 * `chronicle webhooks reset-fan-out`: deletes the EventStoreDB persistent
 * subscription group of the webhook fan-out (its server checkpoint and parked
 * events). The next start of a dispatcher recreates it at the outbox's position,
 * or, for an empty outbox, at the start of the log (every event is fanned out
 * again; receivers de-duplicate by `metadata.eventId`). For the refusal to start
 * on an outbox that is behind the group (docs/operators/webhook-pipeline.md).
 */
export const registerWebhooks: RegisterCommands = (program, context) => {
  const webhooks = program.command('webhooks').description('webhook fan-out maintenance (EventStoreDB)');
  webhooks
    .command('reset-fan-out')
    .description(
      'delete the EventStoreDB persistent subscription group of the webhook fan-out; the next start recreates it at the ' +
        "outbox's position (an empty outbox: the start of the log, so every event is sent again)",
    )
    .option('--json', 'print one JSON document: {"group","deleted"}')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig(context.env);
      if (!config.eventStoreUrl) {
        throw new ConfigError(['EVENTSTORE_URL is not set: the webhook fan-out has a persistent subscription group only on EventStoreDB']);
      }
      const { group, deleted } = await resetWebhookFanOutGroup(config.eventStoreUrl);
      print(
        context,
        options.json === true,
        { group, deleted },
        deleted
          ? `Deleted the persistent subscription group ${group}; the next start recreates it at the outbox's position.`
          : `No persistent subscription group ${group} exists; the next start creates it.`,
      );
    });
};

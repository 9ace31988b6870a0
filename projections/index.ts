import type { Projection, ReadModelDocument } from '../src/application/ports/ReadModelStore.js';
import { apiKeyDirectoryProjection } from './apiKeys/apiKeyDirectoryProjection.js';
import { apiKeysProjection } from './apiKeys/apiKeysProjection.js';
import { agentsProjection } from './agents/agentsProjection.js';
import { contactsProjection } from './contacts/contactsProjection.js';
import { dealsProjection } from './deals/dealsProjection.js';
import { usersProjection } from './users/usersProjection.js';
import { webhookEventsProjections } from './webhookEvents/webhookEventsProjection.js';
import { webhooksProjection } from './webhooks/webhooksProjection.js';

/** Every read model the runner keeps. Each issue adds its own. */
export const allProjections: readonly Projection<ReadModelDocument>[] = [
  apiKeyDirectoryProjection,
  apiKeysProjection,
  usersProjection,
  contactsProjection,
  dealsProjection,
  agentsProjection,
  webhooksProjection,
  ...webhookEventsProjections,
] as unknown as readonly Projection<ReadModelDocument>[];

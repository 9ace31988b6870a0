import * as E from 'fp-ts/lib/Either.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { ApiKeyEvent } from '../../src/domain/apiKeys/events.js';
import { formatValidationErrors } from '../../src/shared/validationReporter.js';

/**
 * Decodes a stored API-key event with the codec it was written with. An event that
 * does not decode means the log and the code disagree: throwing makes the runner
 * log it and retry instead of building a wrong read model.
 */
export const decodeApiKeyEvent = (event: RecordedEvent): ApiKeyEvent => {
  const decoded = ApiKeyEvent.decode({ type: event.type, data: event.data });
  if (E.isLeft(decoded)) {
    throw new Error(`Event ${event.id} (${event.type}) does not decode: ${JSON.stringify(formatValidationErrors(decoded.left))}`);
  }
  return decoded.right;
};

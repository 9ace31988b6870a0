import { randomUUID } from 'node:crypto';
import type { EventToAppend } from '../../src/application/ports/EventStore.js';

/** A new event with test metadata. */
export const anEvent = (type: string, data: unknown = {}, companyId = 'company-test'): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: { source: 'system', correlationId: randomUUID(), companyId },
});

/** A stream name no other test (or earlier run against a shared server) uses. */
export const uniqueStream = (prefix = 'test'): string => `${prefix}-${randomUUID().replace(/-/g, '')}`;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true or the time runs out. */
export const eventually = async (check: () => boolean | Promise<boolean>, timeoutMs = 2000, everyMs = 5): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
};

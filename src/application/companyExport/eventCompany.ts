import type { RecordedEvent } from '../ports/EventStore.js';

/**
 * The company an event belongs to: its metadata's `companyId` (every command
 * records it), else the `companyId` of its data (older events), else none.
 */
export const eventCompany = (event: Pick<RecordedEvent, 'metadata' | 'data'>): string | null => {
  if (event.metadata.companyId !== undefined) return event.metadata.companyId;
  const data = event.data;
  if (typeof data === 'object' && data !== null && 'companyId' in data) {
    const companyId = (data as { companyId: unknown }).companyId;
    if (typeof companyId === 'string') return companyId;
  }
  return null;
};

import { randomUUID } from 'node:crypto';
import type { EventToAppend } from '../../src/application/ports/EventStore.js';

/**
 * Events in the shapes earlier releases stored, for the versioning tests:
 * `ContactUpdated` and `DealStatusChanged` of version 1 (release 92d4d5c: no
 * `contact` / `deal` snapshot), without a recorded version unless one is given.
 */

const metadata = (companyId: string, schemaVersion?: number) => ({
  source: 'api' as const,
  correlationId: randomUUID(),
  companyId,
  ...(schemaVersion !== undefined ? { schemaVersion } : {}),
});

const event = (type: string, data: unknown, companyId: string, schemaVersion?: number): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: metadata(companyId, schemaVersion),
});

export const contactCreated = (contactId: string, companyId: string, name: string, at = '2026-01-01T10:00:00.000Z'): EventToAppend =>
  event(
    'ContactCreated',
    { contactId, companyId, name, phoneNumber: '+441000', email: `${name.toLowerCase()}@example.com`, tags: ['vip'], createdAt: at },
    companyId,
  );

export const contactUpdatedV1 = (
  contactId: string,
  companyId: string,
  changes: Record<string, unknown>,
  previous: Record<string, unknown>,
  at: string,
  schemaVersion?: number,
): EventToAppend => event('ContactUpdated', { contactId, companyId, changes, previous, updatedAt: at }, companyId, schemaVersion);

export const dealCreated = (
  dealId: string,
  companyId: string,
  contact: { id: string; name: string; email: string | null } | null,
  at = '2026-01-01T11:00:00.000Z',
): EventToAppend =>
  event(
    'DealCreated',
    {
      dealId,
      companyId,
      title: 'Engine',
      description: null,
      value: 100,
      currency: 'EUR',
      stage: 'lead',
      priority: 'medium',
      probability: null,
      expectedCloseDate: null,
      source: null,
      contact: contact && { id: contact.id, name: contact.name, email: contact.email, phoneNumber: '+441000', currentCompany: null },
      assignedTo: { id: 'user-1', name: 'Dana', email: 'dana@example.com' },
      createdAt: at,
    },
    companyId,
  );

export const dealStatusChangedV1 = (
  dealId: string,
  companyId: string,
  moves: Record<string, unknown>,
  at: string,
  schemaVersion?: number,
): EventToAppend => event('DealStatusChanged', { dealId, companyId, actualCloseDate: null, updatedAt: at, ...moves }, companyId, schemaVersion);

/** Any event with explicit type, data and recorded version. */
export const storedAs = (type: string, data: unknown, companyId: string, schemaVersion?: number): EventToAppend =>
  event(type, data, companyId, schemaVersion);

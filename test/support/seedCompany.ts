import * as E from 'fp-ts/lib/Either.js';
import { issueApiKey } from '../../src/features/apiKeys/application/issueApiKey.js';
import { createCompany } from '../../src/features/companies/application/createCompany.js';
import type { EventStore } from '../../src/application/ports/EventStore.js';
import { CompanyName } from '../../src/features/companies/domain/CompanyName.js';
import { systemClock } from '../../src/shared/Clock.js';
import { newId } from '../../src/shared/ids.js';
import { SPECIFICATION_PERMISSIONS } from '../../src/shared/permissions.js';

/** A company `Acme` with `keys` full-permission API keys, written into the log as the CLI does. */
export const seedCompanyWithKeys = async (eventStore: EventStore, keys: number): Promise<{ companyId: string; keys: string[] }> => {
  const deps = { eventStore, newId, clock: systemClock };
  const metadata = { source: 'cli', correlationId: newId() } as const;
  const name = CompanyName.decode('Acme');
  if (E.isLeft(name)) throw new Error('bad name');
  const company = await createCompany(deps, { name: name.right, metadata });
  if (E.isLeft(company)) throw new Error('no company');
  const issued: string[] = [];
  for (let i = 0; i < keys; i += 1) {
    const key = await issueApiKey(deps, { companyId: company.right.id, type: 'generic', permissions: SPECIFICATION_PERMISSIONS, expiresAt: null, metadata });
    if (E.isLeft(key)) throw new Error('no key');
    issued.push(key.right.key);
  }
  return { companyId: company.right.id, keys: issued };
};

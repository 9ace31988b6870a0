import * as E from 'fp-ts/lib/Either.js';
import { CompanyName } from '../domain/companies/CompanyName.js';
import { companyDecider } from '../domain/companies/companyDecider.js';
import { describeCompanyError } from '../domain/companies/companyErrors.js';
import { CompanyEvent, companyStream } from '../domain/companies/companyEvents.js';
import { describeApiKeyError } from '../domain/apiKeys/apiKeyErrors.js';
import type { Clock } from '../shared/Clock.js';
import { ALL_PERMISSIONS } from '../shared/permissions.js';
import { issueApiKey } from './apiKeys/issueApiKey.js';
import { handleCommand } from './handleCommand.js';
import type { EventStore } from './ports/EventStore.js';

export const DEMO_COMPANY_NAME = 'Demo company';

export interface BootstrapDemoDeps {
  readonly eventStore: EventStore;
  readonly newId: () => string;
  readonly clock: Clock;
}

export interface DemoCredentials {
  readonly companyId: string;
  readonly companyName: string;
  readonly keyId: string;
  /** Shown once (printed at start); only its hash is stored. */
  readonly key: string;
}

/**
 * On an empty log, creates a demo company and a full-permission generic key so a
 * newcomer can call the API at once; on any other log, does nothing (null).
 * (Two processes starting together on one empty log could each create one; both
 * would work, and no later start creates another.)
 */
export const bootstrapDemo = async (deps: BootstrapDemoDeps): Promise<DemoCredentials | null> => {
  if ((await deps.eventStore.headPosition()) !== null) return null;
  const correlationId = deps.newId();
  const companyId = deps.newId();
  const at = deps.clock.now();
  const name = CompanyName.decode(DEMO_COMPANY_NAME);
  if (E.isLeft(name)) throw new Error('the demo company name is invalid');
  const company = await handleCommand(
    { eventStore: deps.eventStore, newId: deps.newId },
    {
      decider: companyDecider,
      eventCodec: CompanyEvent,
      stream: companyStream(companyId),
      command: { type: 'CreateCompany', companyId, name: name.right, at },
      metadata: { source: 'system', correlationId, companyId },
    },
  );
  if (E.isLeft(company)) throw new Error(describeCompanyError(company.left));
  const key = await issueApiKey(deps, {
    companyId,
    type: 'generic',
    permissions: ALL_PERMISSIONS,
    expiresAt: null,
    at,
    source: 'system',
    correlationId,
  });
  if (E.isLeft(key)) throw new Error(describeApiKeyError(key.left));
  return { companyId, companyName: DEMO_COMPANY_NAME, keyId: key.right.keyId, key: key.right.key };
};

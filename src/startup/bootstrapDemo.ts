import * as E from 'fp-ts/lib/Either.js';
import { CompanyName, describeCompanyError, createCompany } from '../features/companies/index.js';
import { describeApiKeyError, ApiKeyName, issueApiKey } from '../features/apiKeys/index.js';
import { SPECIFICATION_PERMISSIONS } from '../shared/permissions.js';
import type { CommandDeps } from '../application/commands/CommandDeps.js';

export const DEMO_COMPANY_NAME = 'Demo company';
export const DEMO_KEY_NAME = 'Demo key';

export interface DemoCredentials {
  readonly companyId: string;
  readonly companyName: string;
  readonly keyId: string;
  /** Shown once (printed at start); only its hash is stored. */
  readonly key: string;
}

/**
 * On an empty log, creates a demo company and a generic key with the seven
 * permissions of the specification (not `contacts:erase`, granted only when
 * named) so a newcomer can call the API at once; on any other log, does nothing (null).
 * (Two processes starting together on one empty log could each create one; both
 * would work, and no later start creates another.)
 */
export const bootstrapDemo = async (deps: CommandDeps): Promise<DemoCredentials | null> => {
  if ((await deps.eventStore.headPosition()) !== null) return null;
  const metadata = { source: 'system', correlationId: deps.newId() } as const;
  const name = CompanyName.decode(DEMO_COMPANY_NAME);
  if (E.isLeft(name)) throw new Error('the demo company name is invalid');
  const company = await createCompany(deps, { name: name.right, metadata });
  if (E.isLeft(company)) throw new Error(describeCompanyError(company.left));
  const companyId = company.right.id;
  const keyName = ApiKeyName.decode(DEMO_KEY_NAME);
  if (E.isLeft(keyName)) throw new Error('the demo key name is invalid');
  const key = await issueApiKey(deps, { companyId, name: keyName.right, type: 'generic', permissions: SPECIFICATION_PERMISSIONS, expiresAt: null, metadata });
  if (E.isLeft(key)) throw new Error(key.left.kind === 'CompanyNotFound' ? describeCompanyError(key.left) : describeApiKeyError(key.left));
  return { companyId, companyName: DEMO_COMPANY_NAME, keyId: key.right.keyId, key: key.right.key };
};

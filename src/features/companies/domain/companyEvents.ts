import * as t from 'io-ts';

export const CompanyCreated = t.type({
  type: t.literal('CompanyCreated'),
  data: t.type({ companyId: t.string, name: t.string, createdAt: t.string }),
});
export type CompanyCreated = t.TypeOf<typeof CompanyCreated>;

/**
 * Who suspended or resumed a company: an admin token (its id, never the token),
 * or the CLI (whoever runs it on the server's machine).
 */
export const CompanyActor = t.union([
  t.type({ kind: t.literal('admin'), adminTokenId: t.string }),
  t.type({ kind: t.literal('cli') }),
]);
export type CompanyActor = t.TypeOf<typeof CompanyActor>;

/**
 * The platform suspended the company: its API keys are refused, its console
 * sessions end, its webhook deliveries are held. `reason` is sealed under the
 * company's key (`company:<id>`): null once that key is destroyed.
 */
export const CompanySuspended = t.type({
  type: t.literal('CompanySuspended'),
  data: t.type({ companyId: t.string, reason: t.union([t.string, t.null]), suspendedAt: t.string, by: CompanyActor }),
});
export type CompanySuspended = t.TypeOf<typeof CompanySuspended>;

/** The platform resumed a suspended company: everything suspension stopped works again. */
export const CompanyResumed = t.type({
  type: t.literal('CompanyResumed'),
  data: t.type({ companyId: t.string, resumedAt: t.string, by: CompanyActor }),
});
export type CompanyResumed = t.TypeOf<typeof CompanyResumed>;

/** Every event of a `company-<id>` stream. */
export const CompanyEvent = t.union([CompanyCreated, CompanySuspended, CompanyResumed]);
export type CompanyEvent = t.TypeOf<typeof CompanyEvent>;

export const companyStream = (companyId: string): string => `company-${companyId}`;

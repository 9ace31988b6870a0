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

/**
 * The company's deletion was asked for: everything of it is erased once `eraseAfter`
 * has passed (`CompanyErased`), unless it is cancelled first. `by` says
 * who asked (an admin token's id, or the CLI).
 */
export const CompanyDeletionRequested = t.type({
  type: t.literal('CompanyDeletionRequested'),
  data: t.type({ companyId: t.string, requestedAt: t.string, eraseAfter: t.string, by: CompanyActor }),
});
export type CompanyDeletionRequested = t.TypeOf<typeof CompanyDeletionRequested>;

/** A waiting deletion called off (a resume during the waiting period): the company is not erased. */
export const CompanyDeletionCancelled = t.type({
  type: t.literal('CompanyDeletionCancelled'),
  data: t.type({ companyId: t.string, cancelledAt: t.string }),
});
export type CompanyDeletionCancelled = t.TypeOf<typeof CompanyDeletionCancelled>;

/**
 * The company's erasure has begun: from here on it is finished, never cancelled (what
 * it forgets cannot come back), by whichever erasure runs next if this one is cut short.
 */
export const CompanyErasureStarted = t.type({
  type: t.literal('CompanyErasureStarted'),
  data: t.type({ companyId: t.string, startedAt: t.string }),
});
export type CompanyErasureStarted = t.TypeOf<typeof CompanyErasureStarted>;

/** What a company's erasure reached, counted (no id, no value). */
export const CompanyErasureCounts = t.type({
  contacts: t.number,
  users: t.number,
  apiKeys: t.number,
  webhookSubscriptions: t.number,
  webhookDeliveries: t.number,
  keptResponses: t.number,
  consoleSessions: t.number,
  usageRows: t.number,
});
export type CompanyErasureCounts = t.TypeOf<typeof CompanyErasureCounts>;

/**
 * The company existed and was erased: the last event of its stream, final. It holds
 * no personal value; the read models drop every document of the company as they
 * pass it (`erasedWithCompany`).
 */
export const CompanyErased = t.type({
  type: t.literal('CompanyErased'),
  data: t.intersection([t.type({ companyId: t.string, erasedAt: t.string }), CompanyErasureCounts]),
});
export type CompanyErased = t.TypeOf<typeof CompanyErased>;

/** Every event of a `company-<id>` stream. */
export const CompanyEvent = t.union([
  CompanyCreated,
  CompanySuspended,
  CompanyResumed,
  CompanyDeletionRequested, CompanyDeletionCancelled, CompanyErasureStarted,
  CompanyErased,
]);
export type CompanyEvent = t.TypeOf<typeof CompanyEvent>;

export const companyStream = (companyId: string): string => `company-${companyId}`;

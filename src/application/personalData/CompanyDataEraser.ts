/** What a company's erasure reached, counted: the `CompanyErased` event's counts. */
export interface CompanyErasureCounts {
  /** Contacts whose key was destroyed (live or deleted; those erased before are not counted). */
  readonly contacts: number;
  /** Users whose key was destroyed. */
  readonly users: number;
  /** API keys revoked (those revoked before are not counted). */
  readonly apiKeys: number;
  /** Webhook subscriptions whose signing secret was destroyed. */
  readonly webhookSubscriptions: number;
  /** Rows of the webhook outbox deleted (pending deliveries and the delivery log). */
  readonly webhookDeliveries: number;
  /** Records kept for `Idempotency-Key` replays deleted. */
  readonly keptResponses: number;
  /** Console sessions ended. */
  readonly consoleSessions: number;
  /** Usage counter rows deleted. */
  readonly usageRows: number;
}

/**
 * Everything of a company that its log and its read models do not hold, forgotten
 * (the composition root builds it over the process's stores): every contact's and
 * user's key, the company's own subject key, its API keys revoked, its webhook
 * subscriptions' secrets, its webhook outbox rows, its kept `Idempotency-Key`
 * responses, its console sessions and its usage counters. The read models drop the
 * company's documents themselves as they pass its `CompanyErased`. Doing it again
 * finds less and is no error: an erasure cut short is finished by the next.
 */
export interface CompanyDataEraser {
  forget(companyId: string, at: Date): Promise<CompanyErasureCounts>;
}

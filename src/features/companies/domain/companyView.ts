import type { CompanyState } from './companyDecider.js';

/** Whether a company's API keys, console and webhooks work (`active`) or are stopped by the platform (`suspended`). */
export type CompanyStatus = 'active' | 'suspended';

/** A company as the admin API and the CLI show it. */
export interface Company {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly status: CompanyStatus;
  /** When the suspension in force began; null while active. */
  readonly suspendedAt: string | null;
  /** Why it is suspended; null while active (and once the company's key is destroyed). */
  readonly suspensionReason: string | null;
  /** When a deletion asked for (`DELETE /admin/companies/{id}`) erases the company; null when none waits. */
  readonly eraseAfter: string | null;
}

/** The view of a company as its stream has it. */
export const companyViewOf = (state: Extract<CompanyState, { status: 'created' }>): Company => ({
  id: state.companyId,
  name: state.name,
  createdAt: state.createdAt,
  status: state.suspension === null ? 'active' : 'suspended',
  suspendedAt: state.suspension?.suspendedAt ?? null,
  suspensionReason: state.suspension?.reason ?? null,
  eraseAfter: state.deletion?.eraseAfter ?? null,
});

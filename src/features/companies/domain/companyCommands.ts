import type { CompanyName } from './CompanyName.js';
import type { CompanyActor, CompanyErasureCounts } from './companyEvents.js';
import type { SuspensionReason } from './SuspensionReason.js';

export interface CreateCompany {
  readonly type: 'CreateCompany';
  readonly companyId: string;
  readonly name: CompanyName;
  readonly at: Date;
}

export interface SuspendCompany {
  readonly type: 'SuspendCompany';
  readonly companyId: string;
  readonly reason: SuspensionReason;
  readonly by: CompanyActor;
  readonly at: Date;
}

export interface ResumeCompany {
  readonly type: 'ResumeCompany';
  readonly companyId: string;
  readonly by: CompanyActor;
  readonly at: Date;
}

/** Asks for the company's deletion, erased after `eraseAfter`; asked again while it waits, records nothing. */
export interface RequestCompanyDeletion {
  readonly type: 'RequestCompanyDeletion';
  readonly companyId: string;
  readonly at: Date;
  readonly eraseAfter: Date;
  readonly by: CompanyActor;
}

/** Calls off a waiting deletion; with none waiting, records nothing. */
export interface CancelCompanyDeletion {
  readonly type: 'CancelCompanyDeletion';
  readonly companyId: string;
  readonly at: Date;
}

/** Begins the erasure of a company whose deletion waits: from then on it cannot be cancelled. */
export interface StartCompanyErasure {
  readonly type: 'StartCompanyErasure';
  readonly companyId: string;
  readonly at: Date;
}

/** Records that the company, whose erasure began, is erased, with what the erasure reached. */
export interface EraseCompany {
  readonly type: 'EraseCompany';
  readonly companyId: string;
  readonly at: Date;
  readonly counts: CompanyErasureCounts;
}

export type CompanyCommand =
  | CreateCompany
  | SuspendCompany
  | ResumeCompany
  | RequestCompanyDeletion
  | CancelCompanyDeletion
  | StartCompanyErasure
  | EraseCompany;

import type { CompanyName } from './CompanyName.js';
import type { CompanyActor } from './companyEvents.js';
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

export type CompanyCommand = CreateCompany | SuspendCompany | ResumeCompany;

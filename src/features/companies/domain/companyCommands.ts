import type { CompanyName } from './CompanyName.js';

export interface CreateCompany {
  readonly type: 'CreateCompany';
  readonly companyId: string;
  readonly name: CompanyName;
  readonly at: Date;
}

export type CompanyCommand = CreateCompany;

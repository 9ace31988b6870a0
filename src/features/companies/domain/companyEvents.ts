import * as t from 'io-ts';

export const CompanyCreated = t.type({
  type: t.literal('CompanyCreated'),
  data: t.type({ companyId: t.string, name: t.string, createdAt: t.string }),
});
export type CompanyCreated = t.TypeOf<typeof CompanyCreated>;

/** Every event of a `company-<id>` stream (one kind so far). */
export const CompanyEvent = CompanyCreated;
export type CompanyEvent = t.TypeOf<typeof CompanyEvent>;

export const companyStream = (companyId: string): string => `company-${companyId}`;

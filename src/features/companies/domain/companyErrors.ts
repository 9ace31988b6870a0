/** A write names a company that does not exist. */
export type CompanyNotFound = { readonly kind: 'CompanyNotFound'; readonly companyId: string };

/** The platform suspended the company: what it asked for is refused until it is resumed. */
export type CompanyIsSuspended = { readonly kind: 'CompanyIsSuspended'; readonly companyId: string };

export type CompanyError = { readonly kind: 'CompanyAlreadyExists'; readonly companyId: string } | CompanyNotFound;

export const describeCompanyError = (error: CompanyError | CompanyIsSuspended): string => {
  switch (error.kind) {
    case 'CompanyAlreadyExists':
      return `Company ${error.companyId} already exists`;
    case 'CompanyNotFound':
      return `Company ${error.companyId} not found`;
    case 'CompanyIsSuspended':
      return `Company ${error.companyId} is suspended`;
  }
};

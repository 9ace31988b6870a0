/** A write names a company that does not exist (or no longer: erased). */
export type CompanyNotFound = { readonly kind: 'CompanyNotFound'; readonly companyId: string };

/** An erasure of a company whose deletion was not asked for (or was cancelled). */
export type CompanyDeletionNotRequested = { readonly kind: 'CompanyDeletionNotRequested'; readonly companyId: string };

export type CompanyError = { readonly kind: 'CompanyAlreadyExists'; readonly companyId: string } | CompanyNotFound | CompanyDeletionNotRequested;

export const describeCompanyError = (error: CompanyError): string => {
  switch (error.kind) {
    case 'CompanyAlreadyExists':
      return `Company ${error.companyId} already exists`;
    case 'CompanyNotFound':
      return `Company ${error.companyId} not found`;
    case 'CompanyDeletionNotRequested':
      return `Company ${error.companyId} has no deletion waiting`;
  }
};

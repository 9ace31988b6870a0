/** A write names a company that does not exist (or no longer: erased). */
export type CompanyNotFound = { readonly kind: 'CompanyNotFound'; readonly companyId: string };

/** The platform suspended the company: what it asked for is refused until it is resumed. */
export type CompanyIsSuspended = { readonly kind: 'CompanyIsSuspended'; readonly companyId: string };

/** An erasure of a company whose deletion was not asked for (or was cancelled). */
export type CompanyDeletionNotRequested = { readonly kind: 'CompanyDeletionNotRequested'; readonly companyId: string };

/** A cancellation, or an erasure's end, that comes at the wrong point of the erasure. */
export type CompanyErasureUnderWay = { readonly kind: 'CompanyErasureUnderWay'; readonly companyId: string };
export type CompanyErasureNotStarted = { readonly kind: 'CompanyErasureNotStarted'; readonly companyId: string };

export type CompanyError =
  | { readonly kind: 'CompanyAlreadyExists'; readonly companyId: string }
  | CompanyNotFound
  | CompanyDeletionNotRequested
  | CompanyErasureUnderWay
  | CompanyErasureNotStarted;

export const describeCompanyError = (error: CompanyError | CompanyIsSuspended): string => {
  switch (error.kind) {
    case 'CompanyAlreadyExists':
      return `Company ${error.companyId} already exists`;
    case 'CompanyNotFound':
      return `Company ${error.companyId} not found`;
    case 'CompanyIsSuspended':
      return `Company ${error.companyId} is suspended`;
    case 'CompanyDeletionNotRequested':
      return `Company ${error.companyId} has no deletion waiting`;
    case 'CompanyErasureUnderWay':
      return `Company ${error.companyId} is being erased: its deletion can no longer be cancelled`;
    case 'CompanyErasureNotStarted':
      return `Company ${error.companyId} has no erasure under way`;
  }
};

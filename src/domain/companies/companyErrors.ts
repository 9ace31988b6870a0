export type CompanyError = { readonly kind: 'CompanyAlreadyExists'; readonly companyId: string };

export const describeCompanyError = (error: CompanyError): string => {
  switch (error.kind) {
    case 'CompanyAlreadyExists':
      return `Company ${error.companyId} already exists`;
  }
};

export type AdminTokenError =
  | { readonly kind: 'AdminTokenAlreadyIssued'; readonly tokenId: string }
  | { readonly kind: 'AdminTokenNotFound'; readonly tokenId: string }
  | { readonly kind: 'AdminTokenAlreadyRevoked'; readonly tokenId: string; readonly revokedAt: string };

export const describeAdminTokenError = (error: AdminTokenError): string => {
  switch (error.kind) {
    case 'AdminTokenAlreadyIssued':
      return `Admin token ${error.tokenId} already exists`;
    case 'AdminTokenNotFound':
      return `Admin token ${error.tokenId} not found`;
    case 'AdminTokenAlreadyRevoked':
      return `Admin token ${error.tokenId} was already revoked at ${error.revokedAt}`;
  }
};

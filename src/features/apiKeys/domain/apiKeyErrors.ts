export type ApiKeyError =
  | { readonly kind: 'ApiKeyAlreadyIssued'; readonly keyId: string }
  | { readonly kind: 'ApiKeyNotFound'; readonly keyId: string }
  | { readonly kind: 'ApiKeyAlreadyRevoked'; readonly keyId: string; readonly revokedAt: string }
  | { readonly kind: 'NoPermissions' }
  | { readonly kind: 'ExpiryNotInFuture'; readonly expiresAt: string };

export const describeApiKeyError = (error: ApiKeyError): string => {
  switch (error.kind) {
    case 'ApiKeyAlreadyIssued':
      return `API key ${error.keyId} already exists`;
    case 'ApiKeyNotFound':
      return `API key ${error.keyId} not found`;
    case 'ApiKeyAlreadyRevoked':
      return `API key ${error.keyId} was already revoked at ${error.revokedAt}`;
    case 'NoPermissions':
      return 'An API key needs at least one permission';
    case 'ExpiryNotInFuture':
      return `The expiry ${error.expiresAt} is not in the future`;
  }
};

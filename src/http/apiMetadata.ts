import type { EventMetadata } from '../shared/EventMetadata.js';
import type { AuthContext } from '../application/callers/AuthContext.js';

/** Metadata of events caused by an API request: the key, its company, and the request id as correlation id. */
export const apiMetadata = (state: { auth?: AuthContext; requestId?: string }): EventMetadata => {
  if (!state.auth || !state.requestId) throw new Error('apiMetadata needs an authenticated request');
  return {
    source: 'api',
    correlationId: state.requestId,
    companyId: state.auth.companyId,
    keyId: state.auth.keyId,
  };
};

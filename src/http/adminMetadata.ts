import type { AdminAuthContext } from '../application/callers/AdminAuthContext.js';
import type { WriteMetadata } from '../application/commands/WriteMetadata.js';

/** The caller of an admin route, as its authentication set it; a route without it is a wiring bug. */
export const adminOf = (state: { admin?: AdminAuthContext }): AdminAuthContext => {
  if (!state.admin) throw new Error('admin route reached without an admin token');
  return state.admin;
};

/**
 * Metadata of events caused through the admin API: source `admin`, the admin
 * token's id (never the token) and the request id as correlation id; the
 * application function adds the company the events belong to.
 */
export const adminMetadata = (state: { admin?: AdminAuthContext; requestId?: string }): WriteMetadata => {
  const admin = adminOf(state);
  if (!state.requestId) throw new Error('adminMetadata needs a request id');
  return { source: 'admin', correlationId: state.requestId, adminTokenId: admin.tokenId };
};

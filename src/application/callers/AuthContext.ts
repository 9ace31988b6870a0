import type { Permission } from '../../shared/permissions.js';

/** Who is calling: set by the authentication middleware on `ctx.state.auth`. */
export interface AuthContext {
  readonly keyId: string;
  readonly companyId: string;
  readonly permissions: readonly Permission[];
}

import type { Middleware } from 'koa';
import type { Permission } from '../../shared/permissions.js';
import type { AuthContext } from '../../application/callers/AuthContext.js';
import { HttpError } from '../HttpError.js';

/** The caller, as set by `authenticate`; a route without it is a wiring bug. */
export const authOf = (state: { auth?: AuthContext }): AuthContext => {
  if (!state.auth) throw new Error('route reached without authentication');
  return state.auth;
};

/** 403 with `requiredPermission` and `availablePermissions` unless the key holds `permission`. */
export const requirePermission =
  (permission: Permission): Middleware =>
  (ctx, next) => {
    const auth = authOf(ctx.state);
    if (!auth.permissions.includes(permission)) {
      throw new HttpError(403, `Permission denied: ${permission} required`, `This API key lacks the ${permission} permission.`, {
        extras: { requiredPermission: permission, availablePermissions: [...auth.permissions] },
      });
    }
    return next();
  };

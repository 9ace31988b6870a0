/** Extra top-level fields of an error body (e.g. `existingContactId`, `requiredPermission`). */
export type ErrorExtras = Record<string, unknown>;

/**
 * An error a client caused, carrying the spec's error body:
 * `{success: false, error, message?, code?, details?, ...extras, timestamp}`.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly error: string,
    readonly detail?: string,
    readonly options: {
      readonly code?: string;
      readonly details?: Record<string, unknown>;
      readonly extras?: ErrorExtras;
      readonly headers?: Record<string, string>;
    } = {},
  ) {
    super(detail ?? error);
  }
}

export interface ErrorBody {
  success: false;
  error: string;
  message?: string;
  code?: string;
  details?: Record<string, unknown>;
  timestamp: string;
  [extra: string]: unknown;
}

export const errorBody = (error: HttpError, now: Date): ErrorBody => ({
  success: false,
  error: error.error,
  ...(error.detail !== undefined ? { message: error.detail } : {}),
  ...(error.options.code !== undefined ? { code: error.options.code } : {}),
  ...(error.options.details !== undefined ? { details: error.options.details } : {}),
  ...error.options.extras,
  timestamp: now.toISOString(),
});

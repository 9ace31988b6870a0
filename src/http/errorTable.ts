import { ConcurrencyExhaustedError } from '../application/commands/ConcurrencyExhaustedError.js';
import type { InputProblem } from '../shared/InputProblem.js';
import { HttpError } from './HttpError.js';
import { StoreUnavailableError } from '../application/ports/StoreUnavailableError.js';

/** A write refused because the record changed since the ETag its request sent (`If-Match`). */
export interface PreconditionFailed {
  readonly kind: 'PreconditionFailed';
}

/** The refusals every resource may meet: bad input, or a stale `If-Match`. Each feature maps its own beside them. */
export type KernelFailure = InputProblem | PreconditionFailed;

/** The spec's error bodies of the refusals every resource may meet (a feature's own refusals are its to map). */
export const toHttpError = (failure: KernelFailure): HttpError => {
  switch (failure.kind) {
    case 'MissingFields':
      return new HttpError(422, 'Missing required fields', `Required: ${failure.fields.join(', ')}.`, {
        details: { missingFields: [...failure.fields] },
      });
    case 'Invalid':
      return new HttpError(422, 'Validation failed', 'One or more fields are invalid.', { details: { ...failure.details } });
    case 'PreconditionFailed':
      return new HttpError(412, 'Precondition failed', 'The record changed since the ETag sent in If-Match; read it again and retry with its new ETag.', {
        code: 'PRECONDITION_FAILED',
      });
  }
};

/** A field refused for a reason of the feature's own (not its shape): the spec's 422 body, naming the field. */
export const invalidField = (field: string, message: string): HttpError =>
  new HttpError(422, 'Validation failed', 'One or more fields are invalid.', { details: { [field]: message } });

/** Seconds a client should wait before retrying a write that met too many concurrent changes. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Failures that are nobody's fault and pass: the spec's 503 ("temporary
 * outage"), with `Retry-After`, so clients and their HTTP libraries retry; nothing
 * of the write was stored, so sending the same request again is safe. `code` says
 * which: a record that kept changing under the write (`CONCURRENT_CHANGES`), a
 * store that is full (`STORAGE_FULL`) or whose lock was not free in time or whose
 * server could not be reached (`STORE_BUSY`). One says the change may have been
 * made: a connection that broke during a write whose outcome could not be checked
 * (`STORE_INTERRUPTED`: the client looks before sending it again). Null for anything
 * else (a 500).
 */
export const temporaryFailureOf = (error: unknown): HttpError | null => {
  if (error instanceof ConcurrencyExhaustedError) {
    return new HttpError(503, 'Service unavailable', 'This record is being changed by other requests right now. Nothing was changed; retry in a moment.', {
      code: 'CONCURRENT_CHANGES',
      headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
    });
  }
  if (error instanceof StoreUnavailableError) {
    const headers = { 'Retry-After': String(error.retryAfterSeconds) };
    if (error.reason === 'interrupted') {
      return new HttpError(
        503,
        'Service unavailable',
        'The connection to the store broke while this request ran, and whether its change was made is not known. Look before sending it again: a read of the record tells.',
        { code: 'STORE_INTERRUPTED', headers },
      );
    }
    const full = error.reason === 'storage_full';
    return new HttpError(
      503,
      'Service unavailable',
      full
        ? 'The service cannot store changes right now (storage full). Nothing was changed; try again later.'
        : 'The service is busy right now. Nothing was changed; try again shortly.',
      { code: full ? 'STORAGE_FULL' : 'STORE_BUSY', headers },
    );
  }
  return null;
};

import { assertNever } from '../../../shared/Decider.js';
import type { DealError } from '../domain/dealErrors.js';

/** Why a deal write was refused: what a client can cause, as values (the HTTP error table maps each). */
export type DealWriteError =
  /** No such deal, or it belongs to another company (the two are not told apart). */
  | { readonly kind: 'DealNotFound' }
  | { readonly kind: 'ContactNotInCompany' }
  | { readonly kind: 'UserNotInCompany' }
  | { readonly kind: 'CloseDateOnOpenDeal' }
  /** A conditional change (`If-Match`) found the deal changed since the caller read it. */
  | { readonly kind: 'PreconditionFailed' };

/** The write error a deal decider's refusal means to a client. */
export const dealWriteError = (error: DealError): DealWriteError => {
  switch (error.kind) {
    case 'DealNotFound':
      return { kind: 'DealNotFound' };
    case 'CloseDateOnOpenDeal':
      return { kind: 'CloseDateOnOpenDeal' };
    case 'DealAlreadyExists':
      // Only a create meets it, with a fresh id: the ids are broken, not the request.
      throw new Error(`Deal ${error.dealId} already exists`);
    default:
      return assertNever(error);
  }
};

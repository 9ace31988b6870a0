/** Why a contact write was refused: what a client can cause, as values (the HTTP error table maps each). */
export type ContactWriteError =
  /** No such contact, or it belongs to another company (the two are not told apart). */
  | { readonly kind: 'ContactNotFound' }
  | { readonly kind: 'DuplicatePhoneNumber'; readonly existingContactId: string }
  /** A conditional update (`If-Match`) found the contact changed since the caller read it. */
  | { readonly kind: 'PreconditionFailed' };

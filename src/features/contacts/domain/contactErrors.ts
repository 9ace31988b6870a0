/** Domain errors of the contact aggregate, as values. */
export type ContactError =
  | { readonly kind: 'ContactAlreadyExists'; readonly contactId: string }
  /** No such contact, or it belongs to another company (the two are not told apart). */
  | { readonly kind: 'ContactNotFound'; readonly contactId: string };

export type PhoneReservationError =
  /** Another contact holds the number, and the reservation counts. */
  | { readonly kind: 'PhoneNumberTaken'; readonly contactId: string }
  /**
   * The reservation is older than the grace period: it counts only if its holder
   * still has the number. The caller reads that contact and sends the command again
   * with a `holderCheck`.
   */
  | { readonly kind: 'HolderUnverified'; readonly contactId: string };

/** Domain errors of the deal aggregate, as values. */
export type DealError =
  | { readonly kind: 'DealAlreadyExists'; readonly dealId: string }
  /** No such deal, or it belongs to another company (the two are not told apart). */
  | { readonly kind: 'DealNotFound'; readonly dealId: string }
  /** An `actualCloseDate` on a change that leaves (or makes) the deal open: only won and lost deals have one. */
  | { readonly kind: 'CloseDateOnOpenDeal'; readonly dealId: string };

/** Input that failed validation, as the input validators report it (field-level messages from one io-ts reporter). */
export type InputProblem =
  | { readonly kind: 'MissingFields'; readonly fields: readonly string[] }
  | { readonly kind: 'Invalid'; readonly details: Readonly<Record<string, string>> };

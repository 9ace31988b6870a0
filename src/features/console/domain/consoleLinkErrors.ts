/**
 * Why a link opens nothing. An unknown link and a wrong secret are the same
 * `ConsoleLinkNotFound`: a guess learns nothing about which links exist.
 */
export type ConsoleLinkError =
  | { readonly kind: 'ConsoleLinkAlreadyIssued'; readonly linkId: string }
  | { readonly kind: 'ConsoleLinkNotFound' }
  | { readonly kind: 'ConsoleLinkExpired'; readonly expiresAt: string }
  | { readonly kind: 'ConsoleLinkUsed'; readonly redeemedAt: string }
  | { readonly kind: 'ConsoleLinkTooLong'; readonly maxMinutes: number };

export const describeConsoleLinkError = (error: ConsoleLinkError): string => {
  switch (error.kind) {
    case 'ConsoleLinkAlreadyIssued':
      return `Console link ${error.linkId} already exists`;
    case 'ConsoleLinkNotFound':
      return 'This console link is not valid';
    case 'ConsoleLinkExpired':
      return `This console link expired at ${error.expiresAt}`;
    case 'ConsoleLinkUsed':
      return `This console link was already used, at ${error.redeemedAt}`;
    case 'ConsoleLinkTooLong':
      return `A console link is valid for at most ${error.maxMinutes} minutes`;
  }
};

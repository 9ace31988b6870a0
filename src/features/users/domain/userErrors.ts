export type UserError =
  | { readonly kind: 'UserAlreadyExists'; readonly userId: string }
  /** No such user in the company (none at all, or another company's). */
  | { readonly kind: 'UserNotFound'; readonly userId: string };

export const describeUserError = (error: UserError): string => {
  switch (error.kind) {
    case 'UserAlreadyExists':
      return `User ${error.userId} already exists`;
    case 'UserNotFound':
      return `User ${error.userId} not found`;
  }
};

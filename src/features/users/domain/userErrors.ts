export type UserError = { readonly kind: 'UserAlreadyExists'; readonly userId: string };

export const describeUserError = (error: UserError): string => {
  switch (error.kind) {
    case 'UserAlreadyExists':
      return `User ${error.userId} already exists`;
  }
};

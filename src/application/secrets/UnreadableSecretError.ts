/**
 * A webhook secret kept encrypted that no configured key opens (a wrong or lost
 * SECRETS_KEY, a value altered in the store). Nothing is signed with it: the
 * dispatcher's turn fails and is retried, a start refuses to go on. The message
 * names the subscription and the key id, never a secret or a key.
 */
export class UnreadableSecretError extends Error {
  override readonly name = 'UnreadableSecretError';
  constructor(
    readonly subscriptionId: string,
    readonly reason: string,
  ) {
    super(`The webhook secret of subscription ${subscriptionId} cannot be read: ${reason}`);
  }
}

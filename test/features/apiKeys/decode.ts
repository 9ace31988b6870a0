import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';

/** A codec's value for input the test knows to be valid. */
export const valid = <A>(codec: t.Decoder<unknown, A>, input: unknown): A => {
  const decoded = codec.decode(input);
  if (E.isLeft(decoded)) throw new Error(`test input ${JSON.stringify(input)} does not decode`);
  return decoded.right;
};

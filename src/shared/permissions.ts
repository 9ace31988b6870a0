import * as t from 'io-ts';

/** The seven permissions of the specification. */
export const Permission = t.keyof({
  'contacts:read': null,
  'contacts:write': null,
  'deals:read': null,
  'deals:write': null,
  'agents:read': null,
  'webhooks:read': null,
  'webhooks:write': null,
});
export type Permission = t.TypeOf<typeof Permission>;

export const ALL_PERMISSIONS: readonly Permission[] = Object.keys(Permission.keys) as Permission[];

/** Key types: generic, custom, and the two automation platforms. */
export const ApiKeyType = t.keyof({ generic: null, custom: null, zapier: null, make: null });
export type ApiKeyType = t.TypeOf<typeof ApiKeyType>;

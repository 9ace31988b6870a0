import * as t from 'io-ts';

/**
 * Every permission a key can hold: the seven of the specification, then
 * `contacts:erase` (erasing a contact for good, GDPR article 17), which is enough
 * on its own for that and is granted only when named.
 */
export const Permission = t.keyof({
  'contacts:read': null,
  'contacts:write': null,
  'deals:read': null,
  'deals:write': null,
  'agents:read': null,
  'webhooks:read': null,
  'webhooks:write': null,
  'contacts:erase': null,
});
export type Permission = t.TypeOf<typeof Permission>;

/**
 * The seven permissions of the specification, in its order: what "all" gives
 * (`--permissions all`, the console's "select all", the demo key).
 */
export const SPECIFICATION_PERMISSIONS: readonly Permission[] = [
  'contacts:read',
  'contacts:write',
  'deals:read',
  'deals:write',
  'agents:read',
  'webhooks:read',
  'webhooks:write',
];

/**
 * Every permission a key can hold, in the order a key's permissions are kept
 * and shown: the specification's seven, then `contacts:erase`, which "all"
 * leaves out. What validation accepts.
 */
export const EVERY_PERMISSION: readonly Permission[] = Object.keys(Permission.keys) as Permission[];

/** Key types: generic, custom, and the two automation platforms. */
export const ApiKeyType = t.keyof({ generic: null, custom: null, zapier: null, make: null });
export type ApiKeyType = t.TypeOf<typeof ApiKeyType>;

import { DisplayName } from '../../../shared/DisplayName.js';

/** A user's display name (see DisplayName). */
export const UserName = DisplayName;
export type UserName = DisplayName;

import { DisplayName } from '../../../shared/DisplayName.js';

/** What an admin token is for ("billing backend"), so that tokens can be told apart and revoked one by one; see DisplayName. */
export const AdminTokenName = DisplayName;
export type AdminTokenName = DisplayName;

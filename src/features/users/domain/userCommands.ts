import type { Email } from './Email.js';
import type { UserName } from './UserName.js';

/** The caller has checked that the company exists (the decider sees only this user's stream). */
export interface CreateUser {
  readonly type: 'CreateUser';
  readonly userId: string;
  readonly companyId: string;
  readonly name: UserName;
  readonly email: Email;
  readonly at: Date;
}

/** Erases a user of the company (one erased already: nothing to record). */
export interface EraseUser {
  readonly type: 'EraseUser';
  readonly userId: string;
  readonly companyId: string;
  readonly at: Date;
}

export type UserCommand = CreateUser | EraseUser;

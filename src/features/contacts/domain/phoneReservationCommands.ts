/** What the caller found out about a reservation's holder (its contact stream). */
export interface HolderCheck {
  readonly contactId: string;
  /** The holder exists and currently has the reserved number. */
  readonly hasNumber: boolean;
}

/** Reserve `phoneNumber` (normalised) of `companyId` for `contactId` at `at` (ISO 8601). */
export interface ReservePhoneNumber {
  readonly type: 'ReservePhoneNumber';
  readonly companyId: string;
  readonly phoneNumber: string;
  readonly contactId: string;
  readonly at: Date;
  /** Facts about the current holder, when the decider asked for them (HolderUnverified). */
  readonly holderCheck?: HolderCheck;
}

/** `contactId` no longer uses the number. Does nothing unless it is the holder. */
export interface ReleasePhoneNumber {
  readonly type: 'ReleasePhoneNumber';
  readonly contactId: string;
  readonly at: Date;
}

export type PhoneReservationCommand = ReservePhoneNumber | ReleasePhoneNumber;

/** What a delete of a contact or a deal answers: the record's id, when it was deleted and until when it can be restored. */
export interface DeletedRecord {
  readonly id: string;
  readonly deletedAt: string;
  readonly restorableUntil: string;
}

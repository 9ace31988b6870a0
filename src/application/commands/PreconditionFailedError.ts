/**
 * A conditional write (HTTP `If-Match`) found its stream at a revision the caller
 * did not expect: someone else changed the entity since the caller read it.
 * Nothing was written.
 */
export class PreconditionFailedError extends Error {
  override readonly name = 'PreconditionFailedError';
  constructor(
    readonly stream: string,
    /** The stream's revision when the write was refused. */
    readonly actualRevision: number,
  ) {
    super(`Stream ${stream} is at revision ${actualRevision}, which the write's precondition does not accept`);
  }
}

/**
 * The revisions a conditional write accepts (the stream's last revision is
 * passed; 0-based). Absent: the write is unconditional.
 */
export type RevisionPrecondition = (revision: number) => boolean;

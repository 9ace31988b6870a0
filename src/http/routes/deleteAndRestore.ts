import type Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import type { Permission } from '../../shared/permissions.js';
import type { Position } from '../../shared/Position.js';
import type { DeletedRecord } from '../../shared/DeletedRecord.js';
import type { ReadModelProgress } from '../../application/subscriptions/ReadModelProgress.js';
import { apiMetadata } from '../apiMetadata.js';
import type { HttpError } from '../HttpError.js';
import { afterWrite } from '../middleware/consistentReads.js';
import { authOf, requirePermission } from '../middleware/requirePermission.js';


/** The delete and the restore of one kind of record, as its application runs them. */
export interface DeleteAndRestore<Failure> {
  readonly delete: (input: {
    companyId: string;
    id: string;
    retentionMs: number;
    metadata: EventMetadata;
  }) => Promise<E.Either<Failure, { deleted: DeletedRecord; position: Position }>>;
  readonly restore: (input: { companyId: string; id: string; metadata: EventMetadata }) => Promise<E.Either<Failure, { record: object; position: Position | null }>>;
}

/**
 * `DELETE <path>/:id` and `POST <path>/:id/restore` (`permission`): each answers
 * once the read models applied it, so the next read here sees the record gone, or
 * back (`{success: true, data}`: the deleted record's times, or the record).
 */
export const deleteAndRestoreRoutes = <Failure>(
  router: Router,
  spec: {
    readonly path: string;
    readonly permission: Permission;
    readonly commands: DeleteAndRestore<Failure>;
    readonly httpError: (failure: Failure) => HttpError;
    readonly progress: ReadModelProgress;
    readonly readYourWritesTimeoutMs: number;
    /** How long a deleted record stays restorable (DELETED_RECORDS_RETENTION_DAYS). */
    readonly retentionMs: number;
  },
): void => {
  router.delete(`${spec.path}/:id`, requirePermission(spec.permission), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const result = await spec.commands.delete({ companyId, id: ctx.params.id!, retentionMs: spec.retentionMs, metadata: apiMetadata(ctx.state) });
    if (E.isLeft(result)) throw spec.httpError(result.left);
    await afterWrite(ctx, spec.progress, result.right.position, spec.readYourWritesTimeoutMs);
    ctx.body = { success: true, data: result.right.deleted };
  });

  router.post(`${spec.path}/:id/restore`, requirePermission(spec.permission), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const result = await spec.commands.restore({ companyId, id: ctx.params.id!, metadata: apiMetadata(ctx.state) });
    if (E.isLeft(result)) throw spec.httpError(result.left);
    await afterWrite(ctx, spec.progress, result.right.position, spec.readYourWritesTimeoutMs);
    ctx.body = { success: true, data: result.right.record };
  });
};

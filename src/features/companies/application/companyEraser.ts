import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { SubjectEraserOf } from '../../../application/personalData/reapplyErasures.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { companyDecider } from '../domain/companyDecider.js';
import { CompanyEvent, companyStream } from '../domain/companyEvents.js';
import { requestCompanyDeletion } from './companyDeletion.js';

/**
 * Companies erased again after a restore (`reapplyErasures`, the erasure journal's
 * `company` lines): the company's deletion asked for again, with actor `system`,
 * at the time of the erasure re-applied and with no waiting period left, so the
 * company is suspended at once (its keys refused, its deliveries held) and the
 * sweep of the process that runs the projections erases it at its next look
 * (`CompanyDeletionSweep`), as it finishes any erasure cut short. A company the
 * log does not know (made after the backup) has its key destroyed all the same.
 */
export const companyEraser: SubjectEraserOf = (deps) => ({
  kind: 'company',
  // Known to the log while created, and once erased (an erased company is exported as an erasure too).
  companyOf: async (id) => {
    const { state } = await loadAggregate(deps.commands.eventStore, companyStream(id), { eventCodec: CompanyEvent, decider: companyDecider });
    return state.status === 'none' ? null : id;
  },
  reapply: async ({ id, erasedAt }) => {
    const at = new Date(erasedAt);
    const commands: CommandDeps = { ...deps.commands, clock: { now: () => at } };
    const requested = await requestCompanyDeletion(commands, {
      companyId: id,
      retentionMs: 0,
      metadata: { source: 'system', correlationId: deps.commands.newId() },
    });
    if (E.isRight(requested)) return { known: true, position: requested.right.position };
    // Not in this log (or erased in it already): nothing to ask for; its key, if any, goes.
    await deps.erasure.forgetCompanyKey(id, at);
    return { known: false, position: null };
  },
});

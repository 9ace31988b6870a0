import * as E from 'fp-ts/lib/Either.js';
import type { CompanyName } from '../domain/CompanyName.js';
import { companyDecider } from '../domain/companyDecider.js';
import type { CompanyError } from '../domain/companyErrors.js';
import { CompanyEvent, companyStream } from '../domain/companyEvents.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';

export interface CreatedCompany {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly position: Position | null;
}

/** Creates a company with a new id. */
export const createCompany = async (
  deps: CommandDeps,
  input: { readonly name: CompanyName; readonly metadata: WriteMetadata },
): Promise<E.Either<CompanyError, CreatedCompany>> => {
  const companyId = deps.newId();
  const outcome = await handleCommand(deps, {
    decider: companyDecider,
    eventCodec: CompanyEvent,
    stream: companyStream(companyId),
    command: { type: 'CreateCompany', companyId, name: input.name, at: deps.clock.now() },
    metadata: { ...input.metadata, companyId },
  });
  if (E.isLeft(outcome)) return outcome;
  const [created] = outcome.right.events;
  if (created?.type !== 'CompanyCreated') throw new Error('CreateCompany recorded no CompanyCreated');
  return E.right({ id: companyId, name: created.data.name, createdAt: created.data.createdAt, position: outcome.right.position });
};

import { companyDecider, type CompanyState } from '../domain/companyDecider.js';
import { CompanyEvent, companyStream } from '../domain/companyEvents.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import type { EventStore } from '../../../application/ports/EventStore.js';

export type ExistingCompany = Extract<CompanyState, { status: 'created' }>;

/** The company as its stream has it, or null when there is none. */
export const loadCompany = async (eventStore: Pick<EventStore, 'readStream'>, companyId: string): Promise<ExistingCompany | null> => {
  const { state } = await loadAggregate(eventStore, companyStream(companyId), { eventCodec: CompanyEvent, decider: companyDecider });
  return state.status === 'created' ? state : null;
};

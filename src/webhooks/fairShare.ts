/** What `pickFairly` needs of a queue. */
export interface CompanyQueue {
  readonly subscriptionId: string;
  readonly companyId: string;
}

export interface FairShareState {
  /** Queues being worked on, per company. */
  readonly inFlight: ReadonlyMap<string, number>;
  /** When each company last got a slot (a counter that grows): the least recently served go first. */
  readonly lastServed: ReadonlyMap<string, number>;
}

/**
 * Which due queues get the `free` slots: handed out round-robin across the
 * companies that have due queues, one queue per company per round, the company
 * served least recently first (one never served before any other, then in the
 * order of their longest-waiting queue), and never more than `perCompany` queues
 * of one company in flight. Within a company, its queues go in the order given
 * (the longest-waiting first). So a company whose receivers hang holds at most
 * `perCompany` slots, and a company with one due queue gets the next free slot
 * whatever another company has queued.
 */
export const pickFairly = <Q extends CompanyQueue>(candidates: readonly Q[], free: number, perCompany: number, state: FairShareState): Q[] => {
  const byCompany = new Map<string, Q[]>();
  for (const queue of candidates) {
    const queues = byCompany.get(queue.companyId);
    if (queues) queues.push(queue);
    else byCompany.set(queue.companyId, [queue]);
  }
  // Stable: companies served equally long ago keep the order of their longest-waiting queue.
  const companies = [...byCompany.keys()].sort((a, b) => (state.lastServed.get(a) ?? 0) - (state.lastServed.get(b) ?? 0));
  const taken = new Map<string, number>();
  const picked: Q[] = [];
  for (let round = 0; picked.length < free; round++) {
    let progressed = false;
    for (const company of companies) {
      if (picked.length >= free) break;
      const queue = byCompany.get(company)![round];
      const inFlight = (state.inFlight.get(company) ?? 0) + (taken.get(company) ?? 0);
      if (queue === undefined || inFlight >= perCompany) continue;
      picked.push(queue);
      taken.set(company, (taken.get(company) ?? 0) + 1);
      progressed = true;
    }
    if (!progressed) break;
  }
  return picked;
};

import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import type { ChangeDealStatus } from '../../../src/features/deals/domain/dealCommands.js';
import { dealDecider } from '../../../src/features/deals/domain/dealDecider.js';
import type { DealCreated, DealEvent, DealStatusChanged } from '../../../src/features/deals/domain/dealEvents.js';
import type { Deal } from '../../../src/features/deals/domain/dealView.js';
import { specFor } from '../../support/givenWhenThen.js';

const spec = specFor(dealDecider);
const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T11:00:00.000Z';
const T2 = '2024-05-01T12:00:00.000Z';
const CLOSED = '2024-04-30T00:00:00.000Z';
const CORRECTED = '2024-04-29T00:00:00.000Z';

const contact = { id: 'c-1', name: 'Ada', email: 'ada@example.org', phoneNumber: '+44123', currentCompany: null };
const user = { id: 'u-1', name: 'Sam', email: 'sam@example.org' };

const created: DealCreated = {
  type: 'DealCreated',
  data: {
    dealId: 'd-1',
    companyId: 'co-1',
    title: 'Engines',
    description: null,
    value: 1000,
    currency: 'EUR',
    stage: 'Lead',
    priority: 'medium',
    probability: 40,
    expectedCloseDate: null,
    source: null,
    contact,
    assignedTo: null,
    createdAt: T0,
  },
};

/** The deal of `created`, as the API shows it. */
const openView: Deal = {
  id: 'd-1',
  title: 'Engines',
  description: null,
  value: 1000,
  currency: 'EUR',
  stage: 'Lead',
  priority: 'medium',
  probability: 40,
  status: 'open',
  expectedCloseDate: null,
  actualCloseDate: null,
  source: null,
  contact,
  assignedTo: null,
  createdAt: T0,
  updatedAt: T0,
};

type Moves = Omit<DealStatusChanged['data'], 'dealId' | 'companyId' | 'updatedAt' | 'deal'>;

/** `base` with the moves applied at `at` (what the event's `deal` snapshot must be). */
const after = (base: Deal, moves: Moves, at: string): Deal => ({
  ...base,
  ...(moves.status ? { status: moves.status.to } : {}),
  ...(moves.stage ? { stage: moves.stage.to } : {}),
  actualCloseDate: moves.actualCloseDate,
  updatedAt: at,
});

/** A `DealStatusChanged` of `base` (default: the open deal), with its snapshot. */
const changed = (moves: Moves, at = T1, base: Deal = openView): DealStatusChanged => ({
  type: 'DealStatusChanged',
  data: { dealId: 'd-1', companyId: 'co-1', ...moves, updatedAt: at, deal: after(base, moves, at) },
});

const change = (
  fields: ChangeDealStatus['change'],
  companyId = 'co-1',
  at = T1,
  contactNow: ChangeDealStatus['contact'] = contact,
): ChangeDealStatus => ({
  type: 'ChangeDealStatus',
  dealId: 'd-1',
  companyId,
  change: fields,
  contact: contactNow,
  at: new Date(at),
});

const wonMoves: Moves = { status: { from: 'open', to: 'won' }, actualCloseDate: CLOSED };
const lostMoves: Moves = { status: { from: 'open', to: 'lost' }, actualCloseDate: CLOSED };
/** The deal won (or lost) at `CLOSED`, at T1. */
const wonView = after(openView, wonMoves, T1);
const lostView = after(openView, lostMoves, T1);
/** Events of a deal won at `CLOSED` (at T1). */
const won: DealEvent[] = [created, changed(wonMoves)];
/** Events of a deal lost at `CLOSED` (at T1). */
const lost: DealEvent[] = [created, changed(lostMoves)];

const stateAfter = (events: readonly DealEvent[]) => events.reduce(dealDecider.evolve, dealDecider.initialState);

describe('deal decider', () => {
  describe('given no deal', () => {
    it('creates it open, with the defaults and null for every unset field', () =>
      spec
        .given()
        .when({
          type: 'CreateDeal',
          dealId: 'd-1',
          companyId: 'co-1',
          fields: { title: 'Small', value: 0 },
          contact: null,
          assignedTo: null,
          at: new Date(T0),
        })
        .then({
          type: 'DealCreated',
          data: {
            dealId: 'd-1',
            companyId: 'co-1',
            title: 'Small',
            description: null,
            value: 0,
            currency: 'EUR',
            stage: null,
            priority: 'medium',
            probability: null,
            expectedCloseDate: null,
            source: null,
            contact: null,
            assignedTo: null,
            createdAt: T0,
          },
        }));

    it('creates it with every field and the summaries it was given', () =>
      spec
        .given()
        .when({
          type: 'CreateDeal',
          dealId: 'd-1',
          companyId: 'co-1',
          fields: {
            title: 'Big',
            value: 5.5,
            description: 'Fleet',
            currency: 'USD',
            stage: 'Negotiation',
            priority: 'high',
            probability: 60,
            expectedCloseDate: '2027-03-31T00:00:00.000Z',
            source: 'Referral',
          },
          contact,
          assignedTo: user,
          at: new Date(T0),
        })
        .then({
          type: 'DealCreated',
          data: {
            dealId: 'd-1',
            companyId: 'co-1',
            title: 'Big',
            description: 'Fleet',
            value: 5.5,
            currency: 'USD',
            stage: 'Negotiation',
            priority: 'high',
            probability: 60,
            expectedCloseDate: '2027-03-31T00:00:00.000Z',
            source: 'Referral',
            contact,
            assignedTo: user,
            createdAt: T0,
          },
        }));

    it('refuses a status change: not found', () =>
      spec.given().when(change({ status: 'won' })).thenError({ kind: 'DealNotFound', dealId: 'd-1' }));
  });

  describe('given an open deal', () => {
    it('refuses to create it again', () =>
      spec
        .given(created)
        .when({
          type: 'CreateDeal',
          dealId: 'd-1',
          companyId: 'co-1',
          fields: { title: 'X', value: 1 },
          contact: null,
          assignedTo: null,
          at: new Date(T1),
        })
        .thenError({ kind: 'DealAlreadyExists', dealId: 'd-1' }));

    it('wins it, closing it at the command time when no close date is sent', () =>
      spec.given(created).when(change({ status: 'won' })).then(changed({ status: { from: 'open', to: 'won' }, actualCloseDate: T1 })));

    it('loses it, closing it at the command time when no close date is sent', () =>
      spec.given(created).when(change({ status: 'lost' })).then(changed({ status: { from: 'open', to: 'lost' }, actualCloseDate: T1 })));

    it('wins it with the close date sent', () =>
      spec
        .given(created)
        .when(change({ status: 'won', actualCloseDate: CLOSED }))
        .then(changed({ status: { from: 'open', to: 'won' }, actualCloseDate: CLOSED })));

    it('loses it with the close date sent', () =>
      spec
        .given(created)
        .when(change({ status: 'lost', actualCloseDate: CLOSED }))
        .then(changed({ status: { from: 'open', to: 'lost' }, actualCloseDate: CLOSED })));

    it('moves the status and the stage in one event', () =>
      spec
        .given(created)
        .when(change({ status: 'won', stage: 'Closed' }))
        .then(changed({ status: { from: 'open', to: 'won' }, stage: { from: 'Lead', to: 'Closed' }, actualCloseDate: T1 })));

    it('changes the stage alone without touching the status', () =>
      spec
        .given(created)
        .when(change({ stage: 'Proposal' }))
        .then(changed({ stage: { from: 'Lead', to: 'Proposal' }, actualCloseDate: null })));

    it('clears the stage with null', () =>
      spec.given(created).when(change({ stage: null })).then(changed({ stage: { from: 'Lead', to: null }, actualCloseDate: null })));

    it('refuses a close date alone: close date on an open deal', () =>
      spec.given(created).when(change({ actualCloseDate: CLOSED })).thenError({ kind: 'CloseDateOnOpenDeal', dealId: 'd-1' }));

    it('refuses a close date with status open: close date on an open deal', () =>
      spec
        .given(created)
        .when(change({ status: 'open', actualCloseDate: CLOSED }))
        .thenError({ kind: 'CloseDateOnOpenDeal', dealId: 'd-1' }));

    it('emits nothing for status open', () => spec.given(created).when(change({ status: 'open' })).then());

    it('emits nothing for the same stage', () => spec.given(created).when(change({ stage: 'Lead' })).then());

    it('refuses a change from another company: not found', () =>
      spec.given(created).when(change({ status: 'won' }, 'co-2')).thenError({ kind: 'DealNotFound', dealId: 'd-1' }));
  });

  describe('given an open deal: the deal its change records', () => {
    const renamed = { ...contact, name: 'Ada King', email: null };
    const assigned: DealCreated = { ...created, data: { ...created.data, assignedTo: user } };

    it('records the whole deal after the change, with the contact as the command brings it and the assigned user', () =>
      spec
        .given(assigned)
        .when(change({ status: 'won', stage: 'Closed' }, 'co-1', T1, renamed))
        .then({
          type: 'DealStatusChanged',
          data: {
            dealId: 'd-1',
            companyId: 'co-1',
            status: { from: 'open', to: 'won' },
            stage: { from: 'Lead', to: 'Closed' },
            actualCloseDate: T1,
            updatedAt: T1,
            deal: {
              id: 'd-1',
              title: 'Engines',
              description: null,
              value: 1000,
              currency: 'EUR',
              stage: 'Closed',
              priority: 'medium',
              probability: 40,
              status: 'won',
              expectedCloseDate: null,
              actualCloseDate: T1,
              source: null,
              contact: { id: 'c-1', name: 'Ada King', email: null, phoneNumber: '+44123', currentCompany: null },
              assignedTo: user,
              createdAt: T0,
              updatedAt: T1,
            },
          },
        }));

    it('keeps the summary it has when the command brings another contact or none', () => {
      for (const other of [{ ...renamed, id: 'c-2' }, null]) {
        spec
          .given(created)
          .when(change({ stage: 'Proposal' }, 'co-1', T1, other))
          .then(changed({ stage: { from: 'Lead', to: 'Proposal' }, actualCloseDate: null }));
      }
    });

    it('embeds no contact for a deal without one, whatever the command brings', () => {
      const alone: DealCreated = { ...created, data: { ...created.data, contact: null } };
      const [event] = E.getOrElseW(() => expect.fail('refused'))(
        dealDecider.decide(change({ status: 'lost' }, 'co-1', T1, renamed), stateAfter([alone])),
      );
      expect(event?.type === 'DealStatusChanged' && event.data.deal.contact).to.equal(null);
    });
  });

  describe('given a won deal', () => {
    it('reopens it, clearing the close date', () =>
      spec
        .given(...won)
        .when(change({ status: 'open' }, 'co-1', T2))
        .then(changed({ status: { from: 'won', to: 'open' }, actualCloseDate: null }, T2, wonView)));

    it('corrects it to lost, keeping the date it closed when no close date is sent', () =>
      spec
        .given(...won)
        .when(change({ status: 'lost' }, 'co-1', T2))
        .then(changed({ status: { from: 'won', to: 'lost' }, actualCloseDate: CLOSED }, T2, wonView)));

    it('corrects it to lost with the close date sent', () =>
      spec
        .given(...won)
        .when(change({ status: 'lost', actualCloseDate: CORRECTED }, 'co-1', T2))
        .then(changed({ status: { from: 'won', to: 'lost' }, actualCloseDate: CORRECTED }, T2, wonView)));

    it('moves the close date when one is sent alone', () =>
      spec
        .given(...won)
        .when(change({ actualCloseDate: CORRECTED }, 'co-1', T2))
        .then(changed({ actualCloseDate: CORRECTED }, T2, wonView)));

    it('moves the close date when sent with status won', () =>
      spec
        .given(...won)
        .when(change({ status: 'won', actualCloseDate: CORRECTED }, 'co-1', T2))
        .then(changed({ actualCloseDate: CORRECTED }, T2, wonView)));

    it('changes the stage alone, keeping the status and the close date', () =>
      spec
        .given(...won)
        .when(change({ stage: 'Closed' }, 'co-1', T2))
        .then(changed({ stage: { from: 'Lead', to: 'Closed' }, actualCloseDate: CLOSED }, T2, wonView)));

    it('refuses reopening with a close date: close date on an open deal', () =>
      spec
        .given(...won)
        .when(change({ status: 'open', actualCloseDate: CLOSED }))
        .thenError({ kind: 'CloseDateOnOpenDeal', dealId: 'd-1' }));

    it('emits nothing for status won again (the close date stays)', () => spec.given(...won)
      .when(change({ status: 'won' }, 'co-1', T2))
      .then());

    it('emits nothing for the same close date, status and stage', () =>
      spec.given(...won).when(change({ status: 'won', stage: 'Lead', actualCloseDate: CLOSED }, 'co-1', T2)).then());
  });

  describe('given a lost deal', () => {
    it('reopens it, clearing the close date', () =>
      spec
        .given(...lost)
        .when(change({ status: 'open' }, 'co-1', T2))
        .then(changed({ status: { from: 'lost', to: 'open' }, actualCloseDate: null }, T2, lostView)));

    it('corrects it to won, keeping the date it closed when no close date is sent', () =>
      spec
        .given(...lost)
        .when(change({ status: 'won' }, 'co-1', T2))
        .then(changed({ status: { from: 'lost', to: 'won' }, actualCloseDate: CLOSED }, T2, lostView)));

    it('moves the close date when one is sent alone', () =>
      spec
        .given(...lost)
        .when(change({ actualCloseDate: CORRECTED }, 'co-1', T2))
        .then(changed({ actualCloseDate: CORRECTED }, T2, lostView)));

    it('emits nothing for status lost again', () => spec.given(...lost).when(change({ status: 'lost' }, 'co-1', T2)).then());
  });

  describe('given a deal that was won and reopened', () => {
    const history: DealEvent[] = [
      ...won,
      changed({ status: { from: 'won', to: 'open' }, stage: { from: 'Lead', to: null }, actualCloseDate: null }, T2, wonView),
    ];
    const reopenedView: Deal = { ...openView, stage: null, updatedAt: T2 };

    it('is open again with no close date, and can be won again', () =>
      spec.given(...history).when(change({ status: 'won', actualCloseDate: CORRECTED }, 'co-1', T2)).then(
        changed({ status: { from: 'open', to: 'won' }, actualCloseDate: CORRECTED }, T2, reopenedView),
      ));

    it('holds the full deal with createdAt, the last updatedAt and an unchanged probability', () => {
      expect(stateAfter(history)).to.deep.equal({
        status: 'active',
        deal: {
          id: 'd-1',
          companyId: 'co-1',
          title: 'Engines',
          description: null,
          value: 1000,
          currency: 'EUR',
          stage: null,
          priority: 'medium',
          probability: 40,
          status: 'open',
          expectedCloseDate: null,
          actualCloseDate: null,
          source: null,
          contact,
          assignedTo: null,
          createdAt: T0,
          updatedAt: T2,
        },
      });
    });
  });
  describe('refreshing the embedded contact', () => {
    const refresh = (summary: typeof contact, companyId = 'co-1') =>
      ({ type: 'RefreshDealContact', dealId: 'd-1', companyId, contact: summary }) as const;
    const renamed = { ...contact, name: 'Ada King' };

    it('records a newer summary of the contact the deal embeds', () =>
      spec
        .given(created)
        .when(refresh(renamed))
        .then({ type: 'DealContactRefreshed', data: { dealId: 'd-1', companyId: 'co-1', contact: renamed } }));

    it('records a contact deleted since: its id, every other field null', () => {
      const deleted = { id: contact.id, name: null, email: null, phoneNumber: null, currentCompany: null };
      spec
        .given(created)
        .when({ type: 'RefreshDealContact', dealId: 'd-1', companyId: 'co-1', contact: deleted })
        .then({ type: 'DealContactRefreshed', data: { dealId: 'd-1', companyId: 'co-1', contact: deleted } });
    });

    it('records nothing for the same summary, or for another contact', () => {
      spec.given(created).when(refresh({ ...contact })).then();
      spec.given(created).when(refresh({ ...renamed, id: 'c-2' })).then();
    });

    it('refuses an unknown deal or another company’s: not found', () => {
      spec.given().when(refresh(renamed)).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
      spec.given(created).when(refresh(renamed, 'co-2')).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
    });

    it('keeps the refreshed summary in the state, and the status change after it embeds it', () =>
      spec
        .given(created, { type: 'DealContactRefreshed', data: { dealId: 'd-1', companyId: 'co-1', contact: renamed } })
        .when(change({ status: 'won', actualCloseDate: CLOSED }, 'co-1', T1, null))
        .then({
          type: 'DealStatusChanged',
          data: {
            dealId: 'd-1',
            companyId: 'co-1',
            ...wonMoves,
            updatedAt: T1,
            deal: { ...after(openView, wonMoves, T1), contact: renamed },
          },
        }));
  });

  describe('delete and restore', () => {
    const UNTIL = '2024-05-31T10:00:00.000Z';
    const remove = (companyId = 'co-1') =>
      ({ type: 'DeleteDeal', dealId: 'd-1', companyId, at: new Date(T1), restorableUntil: new Date(UNTIL) }) as const;
    const restore = (at: string, contactNow: ChangeDealStatus['contact'] = contact, companyId = 'co-1') =>
      ({ type: 'RestoreDeal', dealId: 'd-1', companyId, contact: contactNow, at: new Date(at) }) as const;
    const deleted: DealEvent = { type: 'DealDeleted', data: { dealId: 'd-1', companyId: 'co-1', deletedAt: T1, restorableUntil: UNTIL } };
    const restored = (deal: Deal = openView, at = T2): DealEvent => ({
      type: 'DealRestored',
      data: { dealId: 'd-1', companyId: 'co-1', restoredAt: at, deal },
    });
    const goneContact = { id: 'c-1', name: null, email: null, phoneNumber: null, currentCompany: null };

    it('deletes a deal, recording until when it can be restored', () => spec.given(created).when(remove()).then(deleted));

    it('deletes a won deal as well', () => spec.given(...won).when(remove()).then(deleted));

    it('refuses to delete a deal already deleted, one never created, or another company\'s: not found', () => {
      spec.given(created, deleted).when(remove()).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
      spec.given().when(remove()).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
      spec.given(created).when(remove('co-2')).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
    });

    it('refuses a status change and a contact refresh of a deleted deal: not found', () => {
      spec.given(created, deleted).when(change({ status: 'won' })).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
      spec
        .given(created, deleted)
        .when({ type: 'RefreshDealContact', dealId: 'd-1', companyId: 'co-1', contact: { ...contact, name: 'Ada King' } })
        .thenError({ kind: 'DealNotFound', dealId: 'd-1' });
    });

    it('refuses to create it again: it exists, deleted', () =>
      spec
        .given(created, deleted)
        .when({ type: 'CreateDeal', dealId: 'd-1', companyId: 'co-1', fields: { title: 'X', value: 1 }, contact: null, assignedTo: null, at: new Date(T2) })
        .thenError({ kind: 'DealAlreadyExists', dealId: 'd-1' }));

    it('restores it as it was when deleted, updatedAt unchanged, with the contact as the command brings it', () => {
      spec.given(created, deleted).when(restore(T2)).then(restored());
      const renamed = { ...contact, name: 'Ada King' };
      spec.given(created, deleted).when(restore(T2, renamed)).then(restored({ ...openView, contact: renamed }));
    });

    it('restores a won deal with its status, stage and close date', () =>
      spec.given(...won, deleted).when(restore(T2)).then(restored(wonView)));

    it('restores it with a deleted contact shown as its id and nulls', () =>
      spec.given(created, deleted).when(restore(T2, goneContact)).then(restored({ ...openView, contact: goneContact })));

    it('keeps the summary it has when the command brings another contact or none', () => {
      spec.given(created, deleted).when(restore(T2, { ...contact, id: 'c-2', name: 'Other' })).then(restored());
      spec.given(created, deleted).when(restore(T2, null)).then(restored());
    });

    it('refuses to restore once restorableUntil has come, and another company\'s or an unknown deal: not found', () => {
      spec.given(created, deleted).when(restore(UNTIL)).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
      spec.given(created, deleted).when(restore(T2, contact, 'co-2')).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
      spec.given().when(restore(T2)).thenError({ kind: 'DealNotFound', dealId: 'd-1' });
    });

    it('restores nothing when the deal is not deleted (a restore sent twice answers the same)', () => {
      spec.given(created).when(restore(T2)).then();
      spec.given(created, deleted, restored()).when(restore(T2)).then();
    });

    it('is active again once restored, with the contact it was restored with: it changes, refreshes and deletes again', () => {
      const withGone = restored({ ...openView, contact: goneContact });
      expect(stateAfter([created, deleted, withGone])).to.deep.equal({
        status: 'active',
        deal: { ...openView, companyId: 'co-1', contact: goneContact },
      });
      spec
        .given(created, deleted, withGone)
        .when(change({ status: 'lost', actualCloseDate: CLOSED }, 'co-1', T2, goneContact))
        .then(changed(lostMoves, T2, { ...openView, contact: goneContact }));
      // The contact restored meanwhile: its summary differs from the one the deal came back with.
      spec
        .given(created, deleted, withGone)
        .when({ type: 'RefreshDealContact', dealId: 'd-1', companyId: 'co-1', contact })
        .then({ type: 'DealContactRefreshed', data: { dealId: 'd-1', companyId: 'co-1', contact } });
      spec.given(created, deleted, restored()).when(remove()).then(deleted);
    });

    it('holds the deleted deal as it was, with when it was deleted and until when it can be restored', () =>
      expect(stateAfter([created, deleted])).to.deep.equal({
        status: 'deleted',
        deal: { ...openView, companyId: 'co-1' },
        deletedAt: T1,
        restorableUntil: UNTIL,
      }));
  });

  describe('given a deal whose contact is deleted: the deal its change records', () => {
    const goneContact = { id: 'c-1', name: null, email: null, phoneNumber: null, currentCompany: null };

    it('records the contact as the command brings it: its id, every other field null', () =>
      spec
        .given(created)
        .when(change({ status: 'won', actualCloseDate: CLOSED }, 'co-1', T1, goneContact))
        .then(changed(wonMoves, T1, { ...openView, contact: goneContact })));
  });

  describe('given a deal whose contact and assigned user were erased (their fields read as null)', () => {
    const UNTIL = '2024-05-31T10:00:00.000Z';
    const erasedContact = { id: 'c-1', name: null, email: null, phoneNumber: null, currentCompany: null };
    const erasedUser = { id: 'u-1', name: null, email: null };
    const erasedCreated: DealCreated = { ...created, data: { ...created.data, contact: erasedContact, assignedTo: erasedUser } };
    /** The deal of `erasedCreated` as its events carry it: the user's link kept, its fields null. */
    const erasedOpen = { ...openView, contact: erasedContact, assignedTo: erasedUser };

    it('records a status change with the contact and the user as its state holds them: their ids, every other field null', () =>
      spec
        .given(erasedCreated)
        .when(change({ status: 'won', actualCloseDate: CLOSED }, 'co-1', T1, erasedContact))
        .then({
          type: 'DealStatusChanged',
          data: { dealId: 'd-1', companyId: 'co-1', ...wonMoves, updatedAt: T1, deal: { ...erasedOpen, status: 'won', actualCloseDate: CLOSED, updatedAt: T1 } },
        }));

    it('keeps a user read as null when the contact is live: nothing of the user is made up or dropped', () =>
      spec
        .given({ ...created, data: { ...created.data, assignedTo: erasedUser } })
        .when(change({ stage: 'Won' }))
        .then({
          type: 'DealStatusChanged',
          data: {
            dealId: 'd-1',
            companyId: 'co-1',
            stage: { from: 'Lead', to: 'Won' },
            actualCloseDate: null,
            updatedAt: T1,
            deal: { ...openView, stage: 'Won', assignedTo: erasedUser, updatedAt: T1 },
          },
        }));

    it('restores it with the contact and the user as its state holds them', () => {
      const deleted: DealEvent = { type: 'DealDeleted', data: { dealId: 'd-1', companyId: 'co-1', deletedAt: T1, restorableUntil: UNTIL } };
      spec
        .given(erasedCreated, deleted)
        .when({ type: 'RestoreDeal', dealId: 'd-1', companyId: 'co-1', contact: erasedContact, at: new Date(T2) })
        .then({ type: 'DealRestored', data: { dealId: 'd-1', companyId: 'co-1', restoredAt: T2, deal: erasedOpen } });
    });
  });
});

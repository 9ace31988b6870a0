import { recordTimeline } from '../../webhookEvents/index.js';
import { contactAggregate } from '../application/contactAggregate.js';
import { contactAsOf } from './contactAsOf.js';
import { contactOf, contactsProjection } from './contactsProjection.js';

/** A contact's history in the console's activity: change by change, and as it was at a chosen time. */
export const contactTimeline = recordTimeline({
  kind: 'contact',
  path: 'contacts',
  label: 'Contact',
  aggregate: contactAggregate,
  projection: contactsProjection,
  viewOf: contactOf,
  titleOf: (view) => String(view.name ?? 'Contact'),
  asOf: contactAsOf,
  erasedBy: ['ContactErased'],
});

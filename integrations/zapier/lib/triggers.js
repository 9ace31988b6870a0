'use strict';

const { apiUrl } = require('./http');
const { verifyDelivery } = require('./signature');
const samples = require('./samples.json');

/**
 * One REST-hook trigger per Chronicle event type. Zapier subscribes its hook URL
 * (POST /webhooks/subscribe) when a Zap is turned on and unsubscribes it
 * (DELETE /webhooks/:id) when it is turned off; each delivery is checked against
 * the subscription's signing secret and becomes one record. `performList` (the
 * test step and the sample) reads GET /triggers/:type/recent.
 *
 * Every record is the event's `data` plus `eventId` (the delivery's
 * `metadata.eventId`). `id` is the contact's or deal's, the same for all its
 * changes, so `eventId` is the primary key: Zapier's de-duplication then starts a
 * Zap once per change, not once per record.
 */

const EVENTS = [
  { type: 'contact.created', noun: 'Contact', label: 'New Contact', description: 'Triggers when a contact is created.' },
  { type: 'contact.updated', noun: 'Contact', label: 'Updated Contact', description: 'Triggers each time a contact\'s data changes.' },
  { type: 'contact.deleted', noun: 'Contact', label: 'Deleted Contact', description: 'Triggers when a contact is deleted (its id and when).' },
  { type: 'contact.restored', noun: 'Contact', label: 'Restored Contact', description: 'Triggers when a deleted contact is restored (its id and when).' },
  {
    type: 'contact.erased',
    noun: 'Contact',
    label: 'Erased Contact',
    description: 'Triggers when a contact is erased for good (its id and when): erase your own copies of the person.',
  },
  { type: 'deal.created', noun: 'Deal', label: 'New Deal', description: 'Triggers when a deal is created.' },
  { type: 'deal.updated', noun: 'Deal', label: 'Updated Deal', description: 'Triggers each time a deal changes (status, stage or close date).' },
  { type: 'deal.stage_changed', noun: 'Deal', label: 'Deal Stage Changed', description: 'Triggers each time a deal moves to another stage.' },
  { type: 'deal.won', noun: 'Deal', label: 'Deal Won', description: 'Triggers each time a deal is won (again after a correction, too).' },
  { type: 'deal.lost', noun: 'Deal', label: 'Deal Lost', description: 'Triggers each time a deal is lost.' },
  { type: 'deal.deleted', noun: 'Deal', label: 'Deleted Deal', description: 'Triggers when a deal is deleted (its id and when).' },
  { type: 'deal.restored', noun: 'Deal', label: 'Restored Deal', description: 'Triggers when a deleted deal is restored (its id and when).' },
];

/** The trigger's key: `contact_created`, `deal_stage_changed`, … */
const triggerKey = (type) => type.replace(/[.]/g, '_');

const outputFields = [
  { key: 'eventId', label: 'Event ID', primary: true },
  { key: 'id', label: 'Record ID' },
];

/** A delivery (`{event, timestamp, data, metadata}`) as a record: the data and its event id. */
const recordOf = (envelope) => ({ ...envelope.data, eventId: envelope.metadata.eventId });

const hookTrigger = ({ type, noun, label, description }) => ({
  key: triggerKey(type),
  noun,
  display: { label, description },
  operation: {
    type: 'hook',
    performSubscribe: async (z, bundle) => {
      const response = await z.request({
        url: apiUrl(bundle, '/webhooks/subscribe'),
        method: 'POST',
        body: { event: type, target_url: bundle.targetUrl },
      });
      // Kept by Zapier as bundle.subscribeData: the id to unsubscribe and the secret to verify deliveries.
      return response.data.data;
    },
    performUnsubscribe: async (z, bundle) => {
      const response = await z.request({ url: apiUrl(bundle, `/webhooks/${encodeURIComponent(bundle.subscribeData.id)}`), method: 'DELETE' });
      return response.data;
    },
    perform: async (z, bundle) => {
      const secret = bundle.subscribeData && bundle.subscribeData.secret;
      if (secret) {
        const raw = bundle.rawRequest || {};
        verifyDelivery({ secret, headers: raw.headers, body: raw.content });
      }
      const envelope = bundle.cleanedRequest;
      if (!envelope || envelope.event !== type) return [];
      return [recordOf(envelope)];
    },
    performList: async (z, bundle) => {
      const response = await z.request({ url: apiUrl(bundle, `/triggers/${type}/recent`), params: { limit: 25 } });
      return response.data;
    },
    sample: samples.triggers[type],
    outputFields,
  },
});

const triggers = Object.fromEntries(EVENTS.map((event) => [triggerKey(event.type), hookTrigger(event)]));

module.exports = { triggers, EVENTS, triggerKey, recordOf };

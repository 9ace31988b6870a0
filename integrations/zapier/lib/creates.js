'use strict';

const { apiUrl } = require('./http');
const samples = require('./samples.json');

/**
 * Actions: create a contact (POST /contacts), create a deal (POST /deals), change a
 * deal's status or stage (PUT /deals/:id/status). Input fields follow the
 * request bodies of the OpenAPI document (the tests check them against it).
 */

/** The fields the user filled in: empty ones are left out (a partial body). */
const filled = (inputData, keys) =>
  Object.fromEntries(keys.filter((key) => inputData[key] !== undefined && inputData[key] !== null && inputData[key] !== '').map((key) => [key, inputData[key]]));

const idempotencyKeyField = {
  key: 'idempotencyKey',
  label: 'Idempotency Key',
  required: false,
  helpText:
    'Optional. The same key within 24 hours returns the first result instead of creating again (for example the id ' +
    'of the record that started the Zap), so a replayed step never creates twice.',
};

/** Headers of a create: `Idempotency-Key` when the user gave one. */
const createHeaders = (inputData) => (inputData.idempotencyKey ? { 'Idempotency-Key': String(inputData.idempotencyKey) } : {});

const text = (key, label, helpText) => ({ key, label, type: 'string', required: false, ...(helpText ? { helpText } : {}) });

const CONTACT_FIELDS = [
  { key: 'name', label: 'Full Name', type: 'string', required: true },
  { key: 'phoneNumber', label: 'Phone Number', type: 'string', required: true, helpText: 'Unique within your company, e.g. `+49 151 2345 6789`.' },
  text('firstName', 'First Name'),
  text('lastName', 'Last Name'),
  text('email', 'Email'),
  text('position', 'Job Title'),
  text('currentCompany', 'Company'),
  text('industrySector', 'Industry Sector'),
  text('city', 'City'),
  text('country', 'Country'),
  { key: 'tags', label: 'Tags', type: 'string', list: true, required: false },
];

const DEAL_FIELDS = [
  { key: 'title', label: 'Title', type: 'string', required: true },
  { key: 'value', label: 'Value', type: 'number', required: true, helpText: '0 or more.' },
  { key: 'description', label: 'Description', type: 'text', required: false },
  text('currency', 'Currency', 'An ISO 4217 code; default `EUR`.'),
  text('stage', 'Stage'),
  { key: 'priority', label: 'Priority', type: 'string', required: false, choices: ['low', 'medium', 'high'] },
  { key: 'probability', label: 'Probability (%)', type: 'number', required: false },
  { key: 'expectedCloseDate', label: 'Expected Close Date', type: 'datetime', required: false },
  text('source', 'Source'),
  text('contactId', 'Contact ID', 'The id of a contact of your company (from a contact trigger or the Find Contact search).'),
  text('assignedToId', 'Assigned User ID'),
];

const STATUS_FIELDS = [
  { key: 'dealId', label: 'Deal ID', type: 'string', required: true },
  { key: 'status', label: 'Status', type: 'string', required: false, choices: ['open', 'won', 'lost'] },
  text('stage', 'Stage'),
  { key: 'actualCloseDate', label: 'Close Date', type: 'datetime', required: false, helpText: 'For won or lost deals; set to now when left empty.' },
];

const keysOf = (fields) => fields.map((field) => field.key);

const numbers = (body, keys) => {
  for (const key of keys) if (body[key] !== undefined) body[key] = Number(body[key]);
  return body;
};

const createContact = {
  key: 'create_contact',
  noun: 'Contact',
  display: { label: 'Create Contact', description: 'Creates a contact.' },
  operation: {
    inputFields: [...CONTACT_FIELDS, idempotencyKeyField],
    perform: async (z, bundle) => {
      const response = await z.request({
        url: apiUrl(bundle, '/contacts'),
        method: 'POST',
        headers: createHeaders(bundle.inputData),
        body: filled(bundle.inputData, keysOf(CONTACT_FIELDS)),
      });
      return response.data.data;
    },
    sample: samples.contact,
  },
};

const createDeal = {
  key: 'create_deal',
  noun: 'Deal',
  display: { label: 'Create Deal', description: 'Creates a deal (open), optionally linked to a contact.' },
  operation: {
    inputFields: [...DEAL_FIELDS, idempotencyKeyField],
    perform: async (z, bundle) => {
      const response = await z.request({
        url: apiUrl(bundle, '/deals'),
        method: 'POST',
        headers: createHeaders(bundle.inputData),
        body: numbers(filled(bundle.inputData, keysOf(DEAL_FIELDS)), ['value', 'probability']),
      });
      return response.data.data;
    },
    sample: samples.deal,
  },
};

const changeDealStatus = {
  key: 'change_deal_status',
  noun: 'Deal',
  display: { label: 'Change Deal Status or Stage', description: 'Marks a deal won, lost or open again, moves its stage, or sets its close date.' },
  operation: {
    inputFields: STATUS_FIELDS,
    perform: async (z, bundle) => {
      const { dealId } = bundle.inputData;
      const response = await z.request({
        url: apiUrl(bundle, `/deals/${encodeURIComponent(dealId)}/status`),
        method: 'PUT',
        body: filled(bundle.inputData, ['status', 'stage', 'actualCloseDate']),
      });
      return response.data.data;
    },
    sample: { ...samples.deal, status: 'won', actualCloseDate: samples.deal.createdAt },
  },
};

module.exports = {
  creates: { [createContact.key]: createContact, [createDeal.key]: createDeal, [changeDealStatus.key]: changeDealStatus },
  CONTACT_FIELDS,
  DEAL_FIELDS,
  STATUS_FIELDS,
};

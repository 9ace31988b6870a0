'use strict';
// Writes the app's component files (Make's local-development layout: makecomapp.json and one folder per
// component) from the descriptions below. The files are committed; `--check` compares them with what
// would be written, without writing, and exits 1 when they differ (the tests run it).
const { mkdirSync, readFileSync, writeFileSync, existsSync } = require('node:fs');
const { dirname, join } = require('node:path');
const samples = require('../../zapier/lib/samples.json');

const ROOT = join(__dirname, '..');
/** Chronicle's error body (`{success: false, error, message}`) as Make shows a failed request. */
const ERROR_MESSAGE = "[{{statusCode}}] {{body.error}}{{if(body.message, ': ' + body.message, '')}}";
const CONNECTION = 'chronicle';

/** Every event type of the API, as the Zapier app lists them (its tests compare them with the OpenAPI document). */
const EVENTS = [
  ['contact.created', 'New Contact', 'a contact is created'],
  ['contact.updated', 'Updated Contact', "a contact's data changes"],
  ['contact.deleted', 'Deleted Contact', 'a contact is deleted (its id and when)'],
  ['contact.restored', 'Restored Contact', 'a deleted contact is restored (its id and when)'],
  ['contact.erased', 'Erased Contact', 'a contact is erased for good (its id and when): erase your own copies of the person'],
  ['deal.created', 'New Deal', 'a deal is created'],
  ['deal.updated', 'Updated Deal', 'a deal changes (status, stage or close date)'],
  ['deal.stage_changed', 'Deal Stage Changed', 'a deal moves to another stage'],
  ['deal.won', 'Deal Won', 'a deal is won (again after a correction, too)'],
  ['deal.lost', 'Deal Lost', 'a deal is lost'],
  ['deal.deleted', 'Deleted Deal', 'a deal is deleted (its id and when)'],
  ['deal.restored', 'Restored Deal', 'a deleted deal is restored (its id and when)'],
];

/** `contact.stage_changed` → `ContactStageChanged`. */
const pascal = (type) => type.split(/[._]/).map((part) => part[0].toUpperCase() + part.slice(1)).join('');
/** `watchContactCreated` → `watch-contact-created` (the editor's file names). */
const kebab = (id) => id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

// ---- fields: one catalogue for input parameters and the interfaces ----

const text = (name, label, extra = {}) => ({ name, type: 'text', label, ...extra });
const date = (name, label) => ({ name, type: 'date', label });
const CONTACT_SUMMARY = [text('id', 'Contact ID'), text('name', 'Name'), text('email', 'Email'), text('phoneNumber', 'Phone Number'), text('currentCompany', 'Company')];
const OUTPUT_FIELDS = {
  id: text('id', 'ID'),
  eventId: text('eventId', 'Event ID'),
  name: text('name', 'Full Name'),
  firstName: text('firstName', 'First Name'),
  lastName: text('lastName', 'Last Name'),
  phoneNumber: text('phoneNumber', 'Phone Number'),
  email: text('email', 'Email'),
  position: text('position', 'Job Title'),
  currentCompany: text('currentCompany', 'Company'),
  industrySector: text('industrySector', 'Industry Sector'),
  city: text('city', 'City'),
  country: text('country', 'Country'),
  tags: { name: 'tags', type: 'array', label: 'Tags', spec: { type: 'text', label: 'Tag' } },
  title: text('title', 'Title'),
  description: text('description', 'Description'),
  value: { name: 'value', type: 'number', label: 'Value' },
  currency: text('currency', 'Currency'),
  stage: text('stage', 'Stage'),
  priority: text('priority', 'Priority'),
  probability: { name: 'probability', type: 'number', label: 'Probability (%)' },
  status: text('status', 'Status'),
  expectedCloseDate: date('expectedCloseDate', 'Expected Close Date'),
  actualCloseDate: date('actualCloseDate', 'Close Date'),
  source: text('source', 'Source'),
  contact: { name: 'contact', type: 'collection', label: 'Contact', spec: CONTACT_SUMMARY },
  assignedTo: { name: 'assignedTo', type: 'collection', label: 'Assigned User', spec: [text('id', 'User ID'), text('name', 'Name'), text('email', 'Email')] },
  createdAt: date('createdAt', 'Created At'),
  updatedAt: date('updatedAt', 'Updated At'),
  wonAt: date('wonAt', 'Won At'),
  deletedAt: date('deletedAt', 'Deleted At'),
  restoredAt: date('restoredAt', 'Restored At'),
  erasedAt: date('erasedAt', 'Erased At'),
};

/** An interface from a record's keys: each field as the catalogue describes it (a collection's spec trimmed to the record's keys). */
const interfaceOf = (record) =>
  Object.keys(record).map((key) => {
    const field = OUTPUT_FIELDS[key];
    if (!field) throw new Error(`no interface field for ${key}`);
    const value = record[key];
    if (field.type === 'collection' && value && typeof value === 'object') {
      return { ...field, spec: field.spec.filter((f) => Object.prototype.hasOwnProperty.call(value, f.name)) };
    }
    return field;
  });

const withoutEventId = ({ eventId: _eventId, ...rest }) => rest;
const CONTACT_INTERFACE = interfaceOf(withoutEventId(samples.triggers['contact.created']));
const DEAL_INTERFACE = interfaceOf({ ...withoutEventId(samples.triggers['deal.created']), assignedTo: { id: '', name: '', email: '' } });

const CONTACT_INPUTS = [
  text('firstName', 'First Name'),
  text('lastName', 'Last Name'),
  { name: 'email', type: 'email', label: 'Email' },
  text('position', 'Job Title'),
  text('currentCompany', 'Company'),
  text('industrySector', 'Industry Sector'),
  text('city', 'City'),
  text('country', 'Country'),
  { name: 'tags', type: 'array', label: 'Tags', spec: { type: 'text', label: 'Tag' } },
];
const NAME = text('name', 'Full Name', { required: true });
const PHONE = text('phoneNumber', 'Phone Number', { required: true, help: 'Unique within your company, e.g. `+49 151 2345 6789`.' });
const IDEMPOTENCY_KEY = text('idempotencyKey', 'Idempotency Key', {
  advanced: true,
  help: 'Optional. The same key within 24 hours returns the first result instead of creating again (for example the id of the bundle that started the scenario), so a replayed run never creates twice.',
});
const CONTACT_ID = {
  name: 'contactId',
  type: 'select',
  label: 'Contact',
  options: 'rpc://listContacts',
  mode: 'edit',
  help: "The contact's ID: pick one, or map one from a trigger or the Search Contacts module.",
};
const DEAL_ID = { name: 'dealId', type: 'select', label: 'Deal', options: 'rpc://listDeals', mode: 'edit', required: true, help: "The deal's ID: pick one, or map one from a trigger." };
const options = (...values) => values.map((value) => ({ label: value[0].toUpperCase() + value.slice(1), value }));

// ---- files ----

const files = new Map();
const put = (path, content) => files.set(path, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);

/** A component's code files as makecomapp.json lists them: `<folder>/<kebab-id>/<kebab-id>.<suffix>`. */
const codeFilesOf = (folder, id, codes) => {
  const codeFiles = {};
  for (const [codeType, [suffix, content]] of Object.entries(codes)) {
    const path = `${folder}/${kebab(id)}/${kebab(id)}.${suffix}`;
    codeFiles[codeType] = path;
    put(path, content);
  }
  return codeFiles;
};

const components = { connection: {}, endpoint: {}, function: {}, module: {}, rpc: {}, webhook: {} };

// The connection: an API key and the API's base URL, checked with GET /test.
components.connection[CONNECTION] = {
  label: 'Chronicle',
  connectionType: 'basic',
  codeFiles: codeFilesOf('connections', CONNECTION, {
    communication: [
      'communication.iml.json',
      {
        url: '{{parameters.baseUrl}}/test',
        method: 'GET',
        headers: { Authorization: 'Bearer {{parameters.apiKey}}' },
        response: {
          metadata: { type: 'text', value: 'Company {{body.data.companyId}}' },
          error: { message: ERROR_MESSAGE },
        },
        log: { sanitize: ['request.headers.authorization'] },
      },
    ],
    params: [
      'params.iml.json',
      [
        {
          name: 'baseUrl',
          type: 'url',
          label: 'Base URL',
          required: true,
          help: 'The address of your Chronicle API with its path prefix and without a trailing slash, e.g. `https://api.example.com/api/external`.',
        },
        {
          name: 'apiKey',
          type: 'password',
          label: 'API Key',
          required: true,
          help: 'An API key of type `make` with the permissions your scenarios need (`contacts:read`, `contacts:write`, `deals:read`, `deals:write`, `webhooks:read`, `webhooks:write`).',
        },
      ],
    ],
  }),
};

const addModule = (id, { label, description, moduleType, actionCrud, webhook, communication, staticParams = [], mappableParams = [], iface, sample, epoch }) => {
  const codes = {
    communication: ['communication.iml.json', communication],
    staticParams: ['static-params.iml.json', staticParams],
    mappableParams: ['mappable-params.iml.json', mappableParams],
    interface: ['interface.iml.json', iface],
    samples: ['samples.iml.json', sample],
  };
  if (epoch) codes.epoch = ['epoch.iml.json', epoch];
  components.module[id] = {
    label,
    description,
    moduleType,
    ...(actionCrud ? { actionCrud } : {}),
    connection: CONNECTION,
    ...(webhook ? { webhook } : {}),
    codeFiles: codeFilesOf('modules', id, codes),
  };
};

const contactSample = withoutEventId(samples.triggers['contact.created']);
const dealSample = { ...withoutEventId(samples.triggers['deal.created']) };

// Actions.
addModule('createContact', {
  label: 'Create a Contact',
  description: 'Creates a contact.',
  moduleType: 'action',
  actionCrud: 'create',
  communication: {
    url: '/contacts',
    method: 'POST',
    headers: { 'Idempotency-Key': '{{parameters.idempotencyKey}}' },
    body: "{{omit(parameters, 'idempotencyKey')}}",
    response: { output: '{{body.data}}' },
  },
  mappableParams: [NAME, PHONE, ...CONTACT_INPUTS, IDEMPOTENCY_KEY],
  iface: CONTACT_INTERFACE,
  sample: contactSample,
});

addModule('updateContact', {
  label: 'Update a Contact',
  description: "Changes a contact's fields; fields left empty keep their value.",
  moduleType: 'action',
  actionCrud: 'update',
  communication: {
    url: '/contacts/{{parameters.contactId}}',
    method: 'PUT',
    body: "{{omit(parameters, 'contactId')}}",
    response: { output: '{{body.data}}' },
  },
  mappableParams: [{ ...CONTACT_ID, required: true }, text('name', 'Full Name'), text('phoneNumber', 'Phone Number'), ...CONTACT_INPUTS],
  iface: CONTACT_INTERFACE,
  sample: contactSample,
});

addModule('createDeal', {
  label: 'Create a Deal',
  description: 'Creates a deal (open), optionally linked to a contact.',
  moduleType: 'action',
  actionCrud: 'create',
  communication: {
    url: '/deals',
    method: 'POST',
    headers: { 'Idempotency-Key': '{{parameters.idempotencyKey}}' },
    body: "{{omit(parameters, 'idempotencyKey')}}",
    response: { output: '{{body.data}}' },
  },
  mappableParams: [
    text('title', 'Title', { required: true }),
    { name: 'value', type: 'number', label: 'Value', required: true, validate: { min: 0 }, help: '0 or more.' },
    text('description', 'Description', { multiline: true }),
    text('currency', 'Currency', { help: 'An ISO 4217 code; `EUR` when left empty.' }),
    text('stage', 'Stage'),
    { name: 'priority', type: 'select', label: 'Priority', options: options('low', 'medium', 'high') },
    { name: 'probability', type: 'number', label: 'Probability (%)', validate: { min: 0, max: 100 } },
    { name: 'expectedCloseDate', type: 'date', label: 'Expected Close Date' },
    text('source', 'Source'),
    CONTACT_ID,
    { name: 'assignedToId', type: 'select', label: 'Assigned User', options: 'rpc://listAssignedUsers', mode: 'edit', help: 'A user of your company: pick one already assigned to a deal, or map a user ID.' },
    IDEMPOTENCY_KEY,
  ],
  iface: DEAL_INTERFACE,
  sample: dealSample,
});

addModule('changeDealStatus', {
  label: "Change a Deal's Status or Stage",
  description: 'Marks a deal won, lost or open again, moves its stage, or sets its close date.',
  moduleType: 'action',
  actionCrud: 'update',
  communication: {
    url: '/deals/{{parameters.dealId}}/status',
    method: 'PUT',
    body: "{{omit(parameters, 'dealId')}}",
    response: { output: '{{body.data}}' },
  },
  mappableParams: [
    DEAL_ID,
    { name: 'status', type: 'select', label: 'Status', options: options('open', 'won', 'lost') },
    text('stage', 'Stage'),
    { name: 'actualCloseDate', type: 'date', label: 'Close Date', help: 'For won or lost deals; set to now when left empty.' },
  ],
  iface: DEAL_INTERFACE,
  sample: { ...dealSample, status: 'won', actualCloseDate: dealSample.createdAt },
});

// Searches.
addModule('searchContacts', {
  label: 'Search Contacts',
  description: 'Finds contacts whose name, email or phone number contains the text.',
  moduleType: 'search',
  communication: {
    url: '/contacts',
    method: 'GET',
    qs: { search: '{{parameters.search}}', limit: '{{parameters.limit}}' },
    response: { iterate: '{{body.data}}', output: '{{item}}', limit: '{{parameters.limit}}' },
  },
  mappableParams: [
    text('search', 'Text', { required: true, help: 'Part of a name, an email address or a phone number.' }),
    { name: 'limit', type: 'uinteger', label: 'Limit', default: 10, validate: { min: 1, max: 200 }, help: 'At most this many contacts (1 to 200).' },
  ],
  iface: CONTACT_INTERFACE,
  sample: contactSample,
});

addModule('getContact', {
  label: 'Get a Contact',
  description: 'Returns a contact by its ID.',
  moduleType: 'action',
  actionCrud: 'read',
  communication: { url: '/contacts/{{parameters.contactId}}', method: 'GET', response: { output: '{{body.data}}' } },
  mappableParams: [{ ...CONTACT_ID, required: true }],
  iface: CONTACT_INTERFACE,
  sample: contactSample,
});

addModule('getDeal', {
  label: 'Get a Deal',
  description: 'Returns a deal by its ID.',
  moduleType: 'action',
  actionCrud: 'read',
  communication: { url: '/deals/{{parameters.dealId}}', method: 'GET', response: { output: '{{body.data}}' } },
  mappableParams: [DEAL_ID],
  iface: DEAL_INTERFACE,
  sample: dealSample,
});

// The date of a trigger record: the instant of its change.
const DATE_FIELD = { created: 'createdAt', updated: 'updatedAt', stage_changed: 'updatedAt', won: 'wonAt', lost: 'updatedAt', deleted: 'deletedAt', restored: 'restoredAt', erased: 'erasedAt' };

const triggerModules = { polling: [], instant: [] };
for (const [type, label, when] of EVENTS) {
  const [resource, change] = type.split('.');
  const dateField = DATE_FIELD[change];
  const sample = samples.triggers[type];
  if (!(dateField in sample)) throw new Error(`${type}: its records have no ${dateField}`);
  const iface = interfaceOf(sample);
  const name = pascal(type);
  // The epoch panel labels each record with its name or title, or its id when the record has neither.
  const epochLabel = ['name', 'title'].find((key) => key in sample) || 'id';

  // Polling: GET /triggers/:type/recent, newest first; Make keeps the newest date and the event ids seen at it.
  const pollingId = `watch${name}`;
  addModule(pollingId, {
    label: `${label} (polling)`,
    description: `Triggers when ${when} (polling).`,
    moduleType: 'trigger',
    communication: {
      url: `/triggers/${type}/recent`,
      method: 'GET',
      qs: { limit: '{{parameters.limit}}' },
      response: {
        iterate: '{{body}}',
        output: '{{item}}',
        limit: '{{parameters.limit}}',
        trigger: { type: 'date', order: 'desc', id: '{{item.eventId}}', date: `{{item.${dateField}}}` },
      },
    },
    epoch: {
      qs: { limit: 100 },
      response: { limit: 100, output: { label: `{{item.${epochLabel}}}`, date: `{{item.${dateField}}}` } },
    },
    staticParams: [
      { name: 'limit', type: 'uinteger', label: 'Limit', default: 25, required: true, validate: { min: 1, max: 100 }, help: 'The most records one run processes (1 to 100).' },
    ],
    iface,
    sample,
  });
  triggerModules.polling.push(pollingId);

  // Instant: a dedicated webhook per event type, attached with POST /webhooks/subscribe. The webhook's
  // communication turns each delivery into the bundle; the instant trigger itself has nothing to request.
  const webhookId = `${resource}${pascal(change)}Hook`;
  components.webhook[webhookId] = {
    label: `${label} (instant)`,
    connection: CONNECTION,
    webhookType: 'web',
    codeFiles: codeFilesOf('webhooks', webhookId, {
      communication: [
        'communication.iml.json',
        {
          respond: { status: 200, type: 'json', body: { received: true } },
          output: Object.fromEntries(iface.map((field) => [field.name, field.name === 'eventId' ? '{{body.metadata.eventId}}' : `{{body.data.${field.name}}}`])),
        },
      ],
      params: ['params.iml.json', []],
      attach: [
        'attach.iml.json',
        {
          url: '/webhooks/subscribe',
          method: 'POST',
          body: { event: type, target_url: '{{webhook.url}}' },
          response: { data: { subscriptionId: '{{body.data.subscription_id}}' } },
        },
      ],
      detach: ['detach.iml.json', { url: '/webhooks/unsubscribe', method: 'DELETE', body: { subscription_id: '{{webhook.subscriptionId}}' } }],
    }),
  };
  const instantId = `instant${name}`;
  addModule(instantId, {
    label: `${label} (instant)`,
    description: `Triggers at once when ${when}.`,
    moduleType: 'instant_trigger',
    webhook: webhookId,
    communication: {},
    iface,
    sample,
  });
  triggerModules.instant.push(instantId);
}

// RPCs: the choices of the select fields.
const rpc = (id, label, communication) => {
  components.rpc[id] = { label, connection: CONNECTION, codeFiles: codeFilesOf('rpcs', id, { communication: ['communication.iml.json', communication], params: ['params.iml.json', []] }) };
};
rpc('listContacts', 'List Contacts', {
  url: '/contacts',
  method: 'GET',
  qs: { limit: 200 },
  response: { iterate: '{{body.data}}', output: { label: '{{item.name}} ({{item.phoneNumber}})', value: '{{item.id}}' } },
});
rpc('listDeals', 'List Deals', {
  url: '/deals',
  method: 'GET',
  qs: { limit: 200 },
  response: { iterate: '{{body.data}}', output: { label: '{{item.title}} ({{item.status}})', value: '{{item.id}}' } },
});
// The API lists no users to an API key; the users it shows are the ones deals are assigned to.
rpc('listAssignedUsers', 'List Assigned Users', {
  url: '/deals',
  method: 'GET',
  qs: { limit: 200 },
  response: {
    iterate: { container: "{{distinct(body.data, 'assignedTo.id')}}", condition: '{{item.assignedTo}}' },
    output: { label: '{{item.assignedTo.name}} ({{item.assignedTo.email}})', value: '{{item.assignedTo.id}}' },
  },
});

// General codes.
put('general/base.iml.json', {
  baseUrl: '{{connection.baseUrl}}',
  headers: { Authorization: 'Bearer {{connection.apiKey}}' },
  response: {
    error: {
      message: ERROR_MESSAGE,
      401: { message: ERROR_MESSAGE, type: 'InvalidAccessTokenError' },
      429: { message: ERROR_MESSAGE, type: 'RateLimitError' },
    },
  },
  log: { sanitize: ['request.headers.authorization'] },
});
put('general/common.json', {});
put('modules/groups.json', [
  { label: 'Contacts', modules: ['createContact', 'updateContact', 'getContact', 'searchContacts'] },
  { label: 'Deals', modules: ['createDeal', 'changeDealStatus', 'getDeal'] },
  { label: 'Instant triggers', modules: triggerModules.instant },
  { label: 'Polling triggers', modules: triggerModules.polling },
]);

put('makecomapp.json', {
  fileVersion: 1,
  generalCodeFiles: { base: 'general/base.iml.json', common: 'general/common.json', groups: 'modules/groups.json', readme: null },
  components,
  origins: [],
});

// ---- write or check ----
const check = process.argv.includes('--check');
const differing = [];
for (const [path, content] of files) {
  const full = join(ROOT, path);
  if (check) {
    if (!existsSync(full) || readFileSync(full, 'utf8') !== content) differing.push(path);
  } else {
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}
if (check) {
  if (differing.length > 0) {
    console.error(`Out of date (run \`npm run generate\`): ${differing.join(', ')}`);
    process.exit(1);
  }
  console.log(`${files.size} files are what scripts/generate.js writes.`);
} else {
  console.log(`Wrote ${files.size} files.`);
}

'use strict';

const { apiUrl } = require('./http');

/** An API key (a `zapier` key: `chronicle keys create --type zapier …`) and the API's base URL; tested with GET /test. */
module.exports = {
  type: 'custom',
  fields: [
    {
      key: 'baseUrl',
      label: 'Base URL',
      type: 'string',
      required: true,
      helpText: 'The address of your Chronicle API, with its path prefix, e.g. `https://api.example.com/api/external`.',
    },
    {
      key: 'apiKey',
      label: 'API key',
      type: 'password',
      required: true,
      helpText:
        'An API key of type `zapier` with the permissions your Zaps need (`contacts:read`, `contacts:write`, ' +
        '`deals:read`, `deals:write`, `webhooks:read`, `webhooks:write`).',
    },
  ],
  test: async (z, bundle) => {
    const response = await z.request({ url: apiUrl(bundle, '/test') });
    return response.data;
  },
  connectionLabel: (z, bundle) => {
    const data = (bundle.inputData && bundle.inputData.data) || {};
    return data.companyId ? `Company ${data.companyId}` : 'Chronicle';
  },
};

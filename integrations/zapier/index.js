'use strict';

const { version: platformVersion } = require('zapier-platform-core');
const { version } = require('./package.json');
const authentication = require('./lib/authentication');
const { addApiKey, explainErrors } = require('./lib/http');
const { triggers } = require('./lib/triggers');
const { creates } = require('./lib/creates');
const { searches } = require('./lib/searches');

/** Chronicle on Zapier: REST-hook triggers for every event type, contact and deal actions, a contact search. */
module.exports = {
  version,
  platformVersion,
  authentication,
  beforeRequest: [addApiKey],
  afterResponse: [explainErrors],
  triggers,
  creates,
  searches,
};

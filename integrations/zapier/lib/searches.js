'use strict';

const { apiUrl } = require('./http');
const samples = require('./samples.json');

/** A phone number as Chronicle stores it: separators removed, a leading `00` as `+`. */
const normalisePhone = (raw) => String(raw).trim().replace(/[\s.\-()]/g, '').replace(/^00/, '+');

/**
 * Finds contacts by phone number or e-mail: GET /contacts?search= (a substring of
 * name, e-mail or phone), then only exact matches of the normalised number or the
 * e-mail (case-insensitive), first page of up to 200.
 */
const findContact = {
  key: 'find_contact',
  noun: 'Contact',
  display: { label: 'Find Contact', description: 'Finds a contact by phone number or e-mail address.' },
  operation: {
    inputFields: [
      { key: 'phoneNumber', label: 'Phone Number', type: 'string', required: false, helpText: 'Any formatting, e.g. `+49 151 2345 6789`.' },
      { key: 'email', label: 'Email', type: 'string', required: false },
    ],
    perform: async (z, bundle) => {
      const phone = bundle.inputData.phoneNumber ? normalisePhone(bundle.inputData.phoneNumber) : null;
      const email = bundle.inputData.email ? String(bundle.inputData.email).trim().toLowerCase() : null;
      if (!phone && !email) throw new z.errors.Error('Give a phone number or an e-mail address to search for.', 'InvalidInput', 400);
      const response = await z.request({ url: apiUrl(bundle, '/contacts'), params: { search: phone || email, limit: 200 } });
      return response.data.data.filter(
        (contact) => (phone && contact.phoneNumber === phone) || (email && typeof contact.email === 'string' && contact.email.toLowerCase() === email),
      );
    },
    sample: samples.contact,
  },
};

module.exports = { searches: { [findContact.key]: findContact }, normalisePhone };

'use strict';

const { expressionsIn, pathsIn } = require('./iml');

/** The names a parameters file declares (top level: what `parameters.<name>` reads). */
const namesOf = (parameters) => new Set((parameters || []).filter((p) => p && typeof p === 'object' && p.name).map((p) => p.name));

/** The keys a directive keeps (`response.data`, `temp`), across one request or several. */
const keysOf = (communication, pick) =>
  new Set(
    (Array.isArray(communication) ? communication : [communication])
      .map((request) => pick(request || {}))
      .filter((value) => value && typeof value === 'object')
      .flatMap((value) => Object.keys(value)),
  );

/** Variables Make provides besides parameters/connection/webhook/temp (per the documentation's lists of IML variables). */
const REQUEST_VARIABLES = ['common', 'now', 'environment', 'scenario', 'metadata', 'data'];
const RESPONSE_VARIABLES = ['body', 'headers', 'statusCode', 'item', 'iterate', 'output', 'pagination'];

/**
 * Every `parameters.*`, `connection.*`, `webhook.*` and `temp.*` reference of the app must name
 * something declared where it is used:
 * - `parameters.x`: a parameter of the same component (a module's static and mappable
 *   parameters, the connection's, a webhook's or an RPC's);
 * - `connection.x`: a parameter of the connection or a key its `response.data` keeps;
 * - `webhook.x`: in attach, Make's `id` and `url`; in detach and in an instant trigger, a key the
 *   webhook's attach keeps in `response.data`;
 * - `temp.x`: a key a `temp` directive of the same file sets.
 * Any other variable must be one Make documents for that place. Returns the problems found.
 */
const checkReferences = (app) => {
  const problems = [];
  const connectionComponent = Object.values(app.components.connection)[0];
  const connectionNames = new Set([...namesOf(connectionComponent && connectionComponent.codes.params), ...keysOf(connectionComponent ? connectionComponent.codes.communication : {}, (r) => r.response && r.response.data)]);

  const check = (where, content, { parameters = null, connection = true, webhook = null, response = true, extra = [] }) => {
    const temps = keysOf(content, (r) => ({ ...(r.temp || {}), ...((r.response && r.response.temp) || {}) }));
    for (const { where: at, expression } of expressionsIn(content)) {
      let paths;
      try {
        paths = pathsIn(expression);
      } catch (error) {
        problems.push(`${where} ${at}: ${error.message}`);
        continue;
      }
      for (const [root, name] of paths) {
        const place = `${where} ${at}: {{${expression}}}`;
        const declared = {
          parameters: parameters,
          connection: connection ? connectionNames : null,
          webhook: webhook,
          temp: temps,
        }[root];
        if (['parameters', 'connection', 'webhook', 'temp'].includes(root)) {
          if (!declared) problems.push(`${place}: ${root} is not available here`);
          else if (name === undefined) {
            if (root !== 'parameters') problems.push(`${place}: ${root} as a whole`);
          } else if (!declared.has(name)) problems.push(`${place}: ${root}.${name} is not declared`);
        } else if (![...REQUEST_VARIABLES, ...(response ? RESPONSE_VARIABLES : []), ...extra].includes(root)) {
          problems.push(`${place}: unknown variable ${root}`);
        }
      }
    }
  };

  // The connection: its own parameters; `connection` does not exist yet.
  if (connectionComponent) {
    check(`connection ${connectionComponent.id}`, connectionComponent.codes.communication, { parameters: namesOf(connectionComponent.codes.params), connection: false });
  }
  // The base: shared by every module, RPC and webhook: no parameters of its own.
  check('base', app.general.base || {}, { parameters: new Set() });

  const webhookData = {};
  for (const webhook of Object.values(app.components.webhook)) {
    const parameters = namesOf(webhook.codes.params);
    webhookData[webhook.id] = keysOf(webhook.codes.attach, (r) => r.response && r.response.data);
    check(`webhook ${webhook.id} attach`, webhook.codes.attach, { parameters, webhook: new Set(['id', 'url']) });
    check(`webhook ${webhook.id} detach`, webhook.codes.detach, { parameters, webhook: webhookData[webhook.id] });
    if (webhook.codes.communication) check(`webhook ${webhook.id} communication`, webhook.codes.communication, { parameters, extra: ['query'] });
    if (webhook.codes.update) check(`webhook ${webhook.id} update`, webhook.codes.update, { parameters, webhook: webhookData[webhook.id] });
  }

  for (const module of Object.values(app.components.module)) {
    const parameters = namesOf([...(module.codes.staticParams || []), ...(module.codes.mappableParams || [])]);
    const instant = module.meta.moduleType === 'instant_trigger';
    const webhook = instant ? webhookData[module.meta.webhook] || new Set() : null;
    check(`module ${module.id} communication`, module.codes.communication, { parameters, webhook, extra: instant ? ['payload'] : [] });
    if (module.codes.epoch) check(`module ${module.id} epoch`, module.codes.epoch, { parameters });
    for (const code of ['staticParams', 'mappableParams', 'interface', 'samples']) {
      if (module.codes[code]) check(`module ${module.id} ${code}`, module.codes[code], { parameters, webhook, response: false });
    }
  }

  for (const rpc of Object.values(app.components.rpc)) {
    check(`rpc ${rpc.id} communication`, rpc.codes.communication, { parameters: namesOf(rpc.codes.params) });
  }
  return problems;
};

module.exports = { checkReferences };

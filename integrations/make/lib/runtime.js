'use strict';

const { render, isEmpty } = require('./iml');

/**
 * Runs the app's communication the way Make's documentation describes it, against a real
 * HTTP server, so that a module's requests and its output can be tested offline. It is a
 * conformance harness written from Make's published specification, not Make's runtime: what
 * only make.com can show is listed in docs/integrators/zapier-and-make.md.
 *
 * What it does, each from the documentation (the choices where it is silent are in
 * docs/contributors/decisions/0620-make-app-rest-hooks-and-silent-points.md):
 * - parameters: only the module's declared parameters reach `parameters`; an empty value
 *   (nothing, empty text, an empty array) leaves the parameter out; a `number`/`uinteger`
 *   becomes a number and a `date` an ISO 8601 instant; a `default` fills an unset one;
 * - base: a `url` starting with `/` is joined to the base's `baseUrl`; the base's headers and
 *   query string are under the module's, its `response` directives under the module's;
 * - the request: `qs` and `headers` entries that evaluate to nothing are not sent; the body is
 *   JSON (`type` json, the default);
 * - the response: 2xx is valid unless `valid` says otherwise; an invalid one raises the
 *   `error` directive's message (its per-status entry first); then `temp`, `iterate`
 *   (`container` and `condition`), `output` (each item as `item`), `limit`, `trigger`,
 *   `data` and `metadata`.
 */
class MakeError extends Error {
  constructor(message, { type = 'RuntimeError', statusCode } = {}) {
    super(message);
    this.type = type;
    this.statusCode = statusCode;
  }
}

const asArray = (communication) => (Array.isArray(communication) ? communication : [communication]);

/** A module's input as Make hands it to the communication: declared, non-empty, typed. */
const prepareParameters = (declared, input = {}) => {
  const parameters = {};
  for (const field of declared) {
    if (typeof field !== 'object' || !field.name) continue;
    let value = input[field.name];
    if (isEmpty(value) && field.default !== undefined) value = field.default;
    if (isEmpty(value)) continue;
    switch (field.type) {
      case 'number':
      case 'integer':
      case 'uinteger': {
        const number = Number(value);
        if (Number.isNaN(number)) throw new MakeError(`${field.name}: not a number`, { type: 'DataError' });
        parameters[field.name] = number;
        break;
      }
      case 'date': {
        const instant = new Date(value);
        if (Number.isNaN(instant.getTime())) throw new MakeError(`${field.name}: not a date`, { type: 'DataError' });
        parameters[field.name] = instant.toISOString();
        break;
      }
      case 'array':
        parameters[field.name] = Array.isArray(value) ? value : [value];
        break;
      case 'boolean':
        parameters[field.name] = Boolean(value);
        break;
      default:
        parameters[field.name] = typeof value === 'object' ? value : String(value);
    }
  }
  return parameters;
};

/** Entries that evaluated to nothing are left out of the query string and the headers. */
const present = (record) => Object.fromEntries(Object.entries(record || {}).filter(([, value]) => value !== undefined && value !== null && value !== ''));

const createRuntime = ({ app, fetchImpl = fetch }) => {
  const base = app.general.base || {};
  const common = app.general.common || {};
  /** Every request sent, in order: `{method, url, headers, body}` (for the comparison with the Zapier app). */
  const sent = [];

  const moduleOf = (id) => {
    const component = app.components.module[id];
    if (!component) throw new Error(`no module ${id}`);
    return component;
  };
  const parametersOf = (component) => [...(component.codes.staticParams || []), ...(component.codes.mappableParams || []), ...(component.codes.params || [])];

  /** One request of a communication, sent; its response processed into outputs. */
  const runRequest = async (request, context, { useBase = true } = {}) => {
    const merged = useBase
      ? {
          ...request,
          headers: { ...(base.headers || {}), ...(request.headers || {}) },
          qs: { ...(base.qs || {}), ...(request.qs || {}) },
          response: { ...(base.response || {}), ...(request.response || {}) },
        }
      : request;
    if (merged.condition !== undefined && !render(merged.condition, context)) return { skipped: true, outputs: [] };

    let url = render(merged.url, context);
    if (useBase && typeof url === 'string' && url.startsWith('/')) url = `${render(base.baseUrl, context)}${url}`;
    const target = new URL(url);
    for (const [key, value] of Object.entries(present(render(merged.qs, context)))) target.searchParams.append(key, String(value));
    const headers = present(render(merged.headers, context));
    const method = (merged.method || 'GET').toUpperCase();
    const body = merged.body === undefined ? undefined : render(merged.body, context);
    const init = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    sent.push({ method, url: target.toString(), headers: init.headers, body });

    const response = await fetchImpl(target, init);
    const raw = await response.text();
    let parsed = raw;
    try {
      parsed = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      // not JSON: the text itself
    }
    const responseHeaders = Object.fromEntries(response.headers.entries());
    const scope = { ...context, body: parsed, headers: responseHeaders, statusCode: response.status };
    return processResponse(merged.response || {}, scope, { request: sent[sent.length - 1], statusCode: response.status, body: parsed });
  };

  /** The response directives, in the documented order. */
  const processResponse = (directives, scope, extra = {}) => {
    const valid = directives.valid === undefined ? scope.statusCode === undefined || (scope.statusCode >= 200 && scope.statusCode < 300) : render(directives.valid, scope);
    if (!valid) {
      const error = directives.error;
      const specific = error && typeof error === 'object' ? error[String(scope.statusCode)] : undefined;
      const chosen = specific || error;
      const message = chosen === undefined ? `HTTP ${scope.statusCode}` : render(typeof chosen === 'string' ? chosen : chosen.message, scope);
      const type = chosen && typeof chosen === 'object' && chosen.type ? render(chosen.type, scope) : undefined;
      throw new MakeError(String(message), { type, statusCode: scope.statusCode });
    }
    if (directives.temp) scope = { ...scope, temp: { ...(scope.temp || {}), ...render(directives.temp, scope) } };
    let items = [undefined];
    if (directives.iterate !== undefined) {
      const spec = typeof directives.iterate === 'string' ? { container: directives.iterate } : directives.iterate;
      const container = render(spec.container, scope);
      items = Array.isArray(container) ? container : [];
      if (spec.condition !== undefined) items = items.filter((item) => render(spec.condition, { ...scope, item }));
    }
    let outputs = items.map((item) => {
      const itemScope = item === undefined ? scope : { ...scope, item };
      if (directives.output !== undefined) return render(directives.output, itemScope);
      return item === undefined ? scope.body : item;
    });
    let triggers;
    if (directives.trigger) triggers = items.map((item) => render({ id: directives.trigger.id, date: directives.trigger.date }, { ...scope, item }));
    if (directives.limit !== undefined) {
      const limit = Number(render(directives.limit, scope));
      if (Number.isFinite(limit)) {
        outputs = outputs.slice(0, limit);
        if (triggers) triggers = triggers.slice(0, limit);
      }
    }
    return {
      ...extra,
      outputs,
      triggers,
      trigger: directives.trigger,
      data: directives.data === undefined ? undefined : render(directives.data, scope),
      metadata: directives.metadata === undefined ? undefined : render(directives.metadata, scope),
    };
  };

  const runCommunication = async (communication, context, options) => {
    const results = [];
    for (const request of asArray(communication)) results.push(await runRequest(request, context, options));
    return { results, outputs: results.flatMap((r) => r.outputs), last: results[results.length - 1] };
  };

  /** The connection's check (GET /test): its metadata and data, and the `connection` modules then see. */
  const connect = async (input) => {
    const component = Object.values(app.components.connection)[0];
    const parameters = prepareParameters(component.codes.params, input);
    const { last } = await runCommunication(component.codes.communication, { parameters, common, now: new Date() }, { useBase: false });
    return { metadata: last.metadata, data: last.data, connection: { ...parameters, ...(last.data || {}) } };
  };

  const contextFor = (connection, parameters, extra = {}) => ({ parameters, connection, common, now: new Date(), ...extra });

  return {
    sent,
    connect,
    prepareParameters,
    /** An action or search module: its output bundles. */
    async run(id, connection, input) {
      const component = moduleOf(id);
      const parameters = prepareParameters(parametersOf(component), input);
      return (await runCommunication(component.codes.communication, contextFor(connection, parameters))).outputs;
    },
    /**
     * A polling trigger run: the bundles Make would emit, oldest first, and the state it keeps.
     * The state is the newest trigger date processed and the ids seen at that date: a record is
     * new when its date is later, or equal with an id not seen yet.
     */
    async poll(id, connection, input, state = null) {
      const component = moduleOf(id);
      const parameters = prepareParameters(parametersOf(component), input);
      const { last } = await runCommunication(component.codes.communication, contextFor(connection, parameters));
      if (!last.trigger) throw new Error(`${id} has no trigger directive`);
      const pairs = last.outputs.map((output, i) => ({ output, id: last.triggers[i].id, date: new Date(last.triggers[i].date).getTime() }));
      const fresh = pairs.filter((p) => !state || p.date > state.date || (p.date === state.date && !state.ids.includes(p.id)));
      fresh.sort((a, b) => a.date - b.date);
      let next = state;
      for (const p of fresh) {
        if (!next || p.date > next.date) next = { date: p.date, ids: [p.id] };
        else if (p.date === next.date) next = { date: next.date, ids: [...next.ids, p.id] };
      }
      return { bundles: fresh.map((p) => p.output), state: next };
    },
    /** The epoch panel's choices: the trigger's communication with the epoch's overrides. */
    async epoch(id, connection, input) {
      const component = moduleOf(id);
      const parameters = prepareParameters(parametersOf(component), input);
      const [request] = asArray(component.codes.communication);
      const { trigger: _trigger, ...inheritedResponse } = request.response || {};
      const overrides = component.codes.epoch;
      const merged = { ...request, ...overrides, qs: { ...(request.qs || {}), ...(overrides.qs || {}) }, response: { ...inheritedResponse, ...overrides.response } };
      return (await runCommunication(merged, contextFor(connection, parameters))).outputs;
    },
    /** A webhook's attach: what it keeps (`response.data`), seen later as `webhook`. */
    async attach(webhookId, connection, webhook, input = {}) {
      const component = app.components.webhook[webhookId];
      const parameters = prepareParameters(component.codes.params || [], input);
      const { last } = await runCommunication(component.codes.attach, contextFor(connection, parameters, { webhook }));
      return last.data;
    },
    /** A webhook's detach, with what attach kept as `webhook`. */
    async detach(webhookId, connection, webhook) {
      const component = app.components.webhook[webhookId];
      const { last } = await runCommunication(component.codes.detach, contextFor(connection, {}, { webhook }));
      return last;
    },
    /**
     * An instant trigger: a delivery (`{body, headers, query}`) through its webhook's communication
     * (`condition`, `iterate`, `output`; `respond` is Make's answer to the sender), then, when the
     * module's own communication has a request, that request once per bundle with the bundle as
     * `payload`. Returns the bundles.
     */
    async instant(id, connection, webhook, delivery) {
      const component = moduleOf(id);
      const hook = app.components.webhook[component.meta.webhook];
      const scope = contextFor(connection, prepareParameters(hook.codes.params || [], {}), { webhook, body: delivery.body, headers: delivery.headers || {}, query: delivery.query || {} });
      const { respond: _respond, verification: _verification, uid: _uid, condition, ...processing } = hook.codes.communication || {};
      if (condition !== undefined && !render(condition, scope)) return [];
      const payloads = processResponse(processing, scope).outputs;
      const own = component.codes.communication;
      if (!own || own.url === undefined) return payloads;
      const bundles = [];
      for (const payload of payloads) bundles.push(...(await runRequest(own, contextFor(connection, prepareParameters(parametersOf(component), {}), { webhook, payload }))).outputs);
      return bundles;
    },
    /** An RPC: its choices (`{label, value}`). */
    async rpc(id, connection, input = {}) {
      const component = app.components.rpc[id];
      const parameters = prepareParameters(component.codes.params || [], input);
      return (await runCommunication(component.codes.communication, contextFor(connection, parameters))).outputs;
    },
  };
};

module.exports = { createRuntime, prepareParameters, MakeError };

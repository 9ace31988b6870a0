import { AssertionError } from 'node:assert';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { adminDocument, apiDocument } from '../../src/features/index.js';
import type {
  HeaderObject,
  HttpMethod,
  OpenApiDocument,
  OperationObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
} from '../../src/http/openapi/types.js';

/**
 * Checks HTTP responses against Chronicle's OpenAPI documents with ajv (draft
 * 2020-12): the customer API's, and the admin API's for paths under `/admin`.
 * Each document is added to an ajv instance of its own as one schema, so the
 * `$ref`s of every response schema (`#/components/schemas/…`) resolve inside it;
 * each schema is compiled once, the first time a response needs it.
 */

/** Top-level OpenAPI fields, declared to ajv as annotations so strict mode accepts the document as a schema. */
const OPENAPI_ROOT_KEYWORDS = ['openapi', 'jsonSchemaDialect', 'info', 'servers', 'security', 'tags', 'paths', 'components', 'webhooks', 'externalDocs'];

/** A JSON pointer (as a URI fragment) from its segments. */
export const pointer = (...segments: readonly string[]): string =>
  segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');

const METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const isReference = (value: ResponseObject | ReferenceObject): value is ReferenceObject => '$ref' in value;

export interface CheckedResponse {
  readonly method: string;
  /** The request path without the base path and without the query. */
  readonly path: string;
  readonly status: number;
  /** The parsed JSON body (or the text of a non-JSON response). */
  readonly body: unknown;
  /** When given, documented headers are checked too (required ones present, values valid). */
  readonly headers?: Headers;
}

const show = (value: unknown): string => {
  const text = JSON.stringify(value, null, 2) ?? String(value);
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
};

const describeErrors = (errors: readonly ErrorObject[] | null | undefined): string =>
  (errors ?? []).map((e) => `  ${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');

const fail = (what: string, detail: string, body: unknown): never => {
  throw new AssertionError({ message: `OpenAPI mismatch: ${what}\n${detail}\nbody: ${show(body)}` });
};

/** Header values are strings; integer and number schemas are checked on the number they spell. */
const headerValue = (raw: string, schema: HeaderObject['schema']): unknown => {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return raw;
};

/** One document's checks: its schemas compiled in an ajv of its own, its paths matched, its responses found. */
export interface OpenApiChecker {
  readonly document: OpenApiDocument;
  /** The value at a JSON pointer (`#/a/b`) in the document, or undefined. */
  resolvePointer(ref: string): unknown;
  /** The compiled validator of the schema at `fragment` (a pointer into the document). */
  validatorAt(fragment: string): ValidateFunction;
  /** Fails unless the response is documented (see `assertMatchesOpenApi`). */
  assertMatches(res: CheckedResponse): void;
}

export const openApiChecker = (document: OpenApiDocument, id: string): OpenApiChecker => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  // A CommonJS module: under NodeNext its default import is `module.exports`, whose `default` is the plugin.
  ajvFormats.default(ajv);
  ajv.addVocabulary(OPENAPI_ROOT_KEYWORDS);
  ajv.addSchema(document as object, id);

  const resolvePointer = (ref: string): unknown => {
    if (!ref.startsWith('#')) return undefined;
    let value: unknown = document;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };

  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (fragment: string): ValidateFunction => {
    let validate = validators.get(fragment);
    if (!validate) {
      validate = ajv.getSchema(`${id}#${fragment}`);
      if (!validate) throw new Error(`No schema at #${fragment}`);
      validators.set(fragment, validate);
    }
    return validate;
  };

  /** Path templates as patterns, literal ones first so `/contacts/search` would win over `/contacts/{id}`. */
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{[^}]+\}/g) ?? []).length,
      pattern: new RegExp(
        `^${template
          .split('/')
          .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/')}$`,
      ),
    }))
    .sort((a, b) => a.params - b.params);

  const matchTemplate = (path: string): string | undefined => {
    const normalised = path.length > 1 ? path.replace(/\/$/, '') : path;
    return templates.find((t) => t.pattern.test(normalised))?.template;
  };

  /** Finds the documented response: the operation (or the app-wide 404/405), then the status. */
  const documentedResponse = (
    res: CheckedResponse,
  ): { what: string; fragment: string; response: ResponseObject } => {
    const method = res.method.toLowerCase() as HttpMethod;
    const where = `${res.method.toUpperCase()} ${res.path} → ${res.status}`;
    const template = matchTemplate(res.path);
    if (template === undefined) {
      if (res.status === 404) {
        return { what: `${where} (unknown path)`, fragment: pointer('components', 'responses', 'NotFound'), response: document.components.responses!.NotFound! };
      }
      return fail(where, `no documented path matches ${res.path}`, res.body);
    }
    const item: PathItemObject = document.paths[template]!;
    const operationMethod = method === 'head' && !item.head ? 'get' : method;
    const operation: OperationObject | undefined = METHODS.includes(operationMethod) ? item[operationMethod] : undefined;
    if (!operation) {
      if (res.status === 405) {
        return {
          what: `${where} (method not documented on ${template})`,
          fragment: pointer('components', 'responses', 'MethodNotAllowed'),
          response: document.components.responses!.MethodNotAllowed!,
        };
      }
      return fail(where, `${res.method.toUpperCase()} is not documented on ${template}`, res.body);
    }
    const statuses = [String(res.status), `${String(res.status)[0]}XX`, 'default'];
    const key = statuses.find((s) => Object.hasOwn(operation.responses, s));
    if (key === undefined) {
      return fail(
        `${where} (${operation.operationId})`,
        `status ${res.status} is not documented; documented: ${Object.keys(operation.responses).join(', ')}`,
        res.body,
      );
    }
    const found = operation.responses[key]!;
    if (isReference(found)) {
      const target = resolvePointer(found.$ref) as ResponseObject | undefined;
      if (!target) return fail(where, `unresolvable response $ref ${found.$ref}`, res.body);
      return { what: `${where} (${operation.operationId})`, fragment: found.$ref.slice(1), response: target };
    }
    return {
      what: `${where} (${operation.operationId})`,
      fragment: pointer('paths', template, operationMethod, 'responses', key),
      response: found,
    };
  };

  /**
   * Fails (with the ajv errors and the body) unless the response is documented: its
   * path and method name an operation (or it is the app's 404 for an unknown path,
   * or 405 for an undocumented method on a known path), its status is listed, its
   * body matches the schema, and, when headers are given, the content type and the
   * documented headers match (required ones present).
   */
  const assertMatches = (res: CheckedResponse): void => {
    const { what, fragment, response } = documentedResponse(res);
    const content = response.content ?? {};
    const mediaTypes = Object.keys(content);

    if (mediaTypes.length === 0) {
      if (res.body !== undefined && res.body !== null && res.body !== '') fail(what, 'the response is documented without a body', res.body);
    } else {
      const contentType = res.headers?.get('content-type')?.split(';')[0]?.trim().toLowerCase();
      const mediaType = contentType !== undefined ? mediaTypes.find((m) => m === contentType) : mediaTypes[0];
      if (mediaType === undefined) {
        fail(what, `content type ${contentType} is not documented (documented: ${mediaTypes.join(', ')})`, res.body);
      } else {
        const validate = validatorAt(`${fragment}${pointer('content', mediaType, 'schema')}`);
        if (!validate(res.body)) fail(what, `body does not match ${mediaType} schema:\n${describeErrors(validate.errors)}`, res.body);
      }
    }

    if (res.headers) {
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        const raw = res.headers.get(name);
        if (raw === null) {
          if (header.required) fail(what, `required header ${name} is missing`, res.body);
          continue;
        }
        const validate = validatorAt(`${fragment}${pointer('headers', name, 'schema')}`);
        if (!validate(headerValue(raw, header.schema))) {
          fail(what, `header ${name}: ${JSON.stringify(raw)} does not match:\n${describeErrors(validate.errors)}`, res.body);
        }
      }
    }
  };

  return { document, resolvePointer, validatorAt, assertMatches };
};

/** The customer API's document under test (the base path only changes `servers`), and its checks. */
export const customerApi = openApiChecker(apiDocument(''), 'https://chronicle.invalid/openapi.json');
/** The admin API's document under test, and its checks. */
export const adminApi = openApiChecker(adminDocument(''), 'https://chronicle.invalid/admin/openapi.json');

export const openApi = customerApi.document;
export const resolvePointer = customerApi.resolvePointer;
export const validatorAt = customerApi.validatorAt;

/** Paths of the admin API: `/admin` and below. */
const isAdminPath = (path: string): boolean => path === '/admin' || path.startsWith('/admin/');

/**
 * Fails (with the ajv errors and the body) unless the response is documented in
 * its API's document (the admin API's for paths under `/admin`): its path and
 * method name an operation (or it is the app's 404 for an unknown path, or 405 for
 * an undocumented method on a known path), its status is listed, its body matches
 * the schema, and, when headers are given, the content type and the documented
 * headers match (required ones present).
 */
export const assertMatchesOpenApi = (res: CheckedResponse): void => (isAdminPath(res.path) ? adminApi : customerApi).assertMatches(res);

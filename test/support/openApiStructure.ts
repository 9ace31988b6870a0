import { expect } from 'chai';
import type { HttpMethod, OpenApiDocument, OperationObject, ResponseObject } from '../../src/http/openapi/types.js';
import { pointer, type OpenApiChecker } from './openApi.js';

/**
 * What every one of Chronicle's OpenAPI documents (the customer API's, the admin
 * API's) must be, as a document: OpenAPI 3.1's fixed fields only, every `$ref`
 * resolved, every schema compiled in ajv (strict), its examples valid, every
 * operation named, tagged and with its path parameters declared.
 */

export const METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export const operationsOf = (document: OpenApiDocument): { path: string; method: HttpMethod; operation: OperationObject }[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] ? [{ path, method, operation: item[method] }] : [])),
  );

/** Every `$ref` in a value, with where it was found. */
export const refsIn = (value: unknown, at = '#'): { ref: string; at: string }[] => {
  if (Array.isArray(value)) return value.flatMap((v, i) => refsIn(v, `${at}/${i}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refsIn(v, `${at}/${key}`),
  );
};

/** Pointers of every schema used by an operation: parameters, request bodies, response bodies and headers. */
const operationSchemaPointers = (document: OpenApiDocument): string[] =>
  operationsOf(document).flatMap(({ path, method, operation }) => {
    const base = ['paths', path, method];
    const pointers: string[] = [];
    (operation.parameters ?? []).forEach((parameter, i) => {
      if (!('$ref' in parameter)) pointers.push(pointer(...base, 'parameters', String(i), 'schema'));
    });
    for (const mediaType of Object.keys(operation.requestBody?.content ?? {})) {
      pointers.push(pointer(...base, 'requestBody', 'content', mediaType, 'schema'));
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      if ('$ref' in response) continue;
      for (const mediaType of Object.keys(response.content ?? {})) {
        pointers.push(pointer(...base, 'responses', status, 'content', mediaType, 'schema'));
      }
      for (const header of Object.keys(response.headers ?? {})) {
        pointers.push(pointer(...base, 'responses', status, 'headers', header, 'schema'));
      }
    }
    return pointers;
  });

/** The checks above, as mocha tests of `checker`'s document (call inside a `describe`). */
export const documentStructureChecks = (checker: OpenApiChecker): void => {
  const { document } = checker;

  it('uses only the fixed fields OpenAPI 3.1 defines for each object (or x- extensions)', () => {
    const fields = {
      document: ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs'],
      info: ['title', 'summary', 'description', 'termsOfService', 'contact', 'license', 'version'],
      server: ['url', 'description', 'variables'],
      tag: ['name', 'description', 'externalDocs'],
      components: ['schemas', 'responses', 'parameters', 'examples', 'requestBodies', 'headers', 'securitySchemes', 'links', 'callbacks', 'pathItems'],
      pathItem: ['$ref', 'summary', 'description', 'servers', 'parameters', ...METHODS],
      operation: ['tags', 'summary', 'description', 'externalDocs', 'operationId', 'parameters', 'requestBody', 'responses', 'callbacks', 'deprecated', 'security', 'servers'],
      parameter: ['name', 'in', 'description', 'required', 'deprecated', 'allowEmptyValue', 'schema', 'content', 'style', 'explode', 'allowReserved', 'example', 'examples'],
      requestBody: ['description', 'content', 'required'],
      response: ['description', 'headers', 'content', 'links'],
      header: ['description', 'required', 'deprecated', 'allowEmptyValue', 'schema', 'content', 'style', 'explode', 'example', 'examples'],
      mediaType: ['schema', 'encoding', 'example', 'examples'],
      securityScheme: ['type', 'description', 'name', 'in', 'scheme', 'bearerFormat', 'flows', 'openIdConnectUrl'],
    } as const;
    const problems: string[] = [];
    const check = (kind: keyof typeof fields, value: object, at: string) => {
      for (const key of Object.keys(value)) {
        if (!(fields[kind] as readonly string[]).includes(key) && !key.startsWith('x-')) problems.push(`${at}: ${kind} has no field ${key}`);
      }
    };
    const checkResponse = (response: ResponseObject, at: string) => {
      check('response', response, at);
      for (const [name, header] of Object.entries(response.headers ?? {})) check('header', header, `${at}/headers/${name}`);
      for (const [type, media] of Object.entries(response.content ?? {})) check('mediaType', media, `${at}/content/${type}`);
    };
    check('document', document, '#');
    check('info', document.info, '#/info');
    document.servers.forEach((server, i) => check('server', server, `#/servers/${i}`));
    (document.tags ?? []).forEach((tag, i) => check('tag', tag, `#/tags/${i}`));
    check('components', document.components, '#/components');
    for (const [name, scheme] of Object.entries(document.components.securitySchemes)) check('securityScheme', scheme, `#/components/securitySchemes/${name}`);
    for (const [name, response] of Object.entries(document.components.responses ?? {})) checkResponse(response, `#/components/responses/${name}`);
    for (const [name] of Object.entries(document.components)) {
      for (const key of Object.keys((document.components as Record<string, object>)[name] ?? {})) {
        if (!/^[a-zA-Z0-9._-]+$/.test(key)) problems.push(`#/components/${name}: bad name ${key}`);
      }
    }
    for (const [path, item] of Object.entries(document.paths)) {
      if (!path.startsWith('/')) problems.push(`${path}: paths start with /`);
      check('pathItem', item, path);
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const at = `${method.toUpperCase()} ${path}`;
        check('operation', operation, at);
        for (const parameter of operation.parameters ?? []) {
          if ('$ref' in parameter) continue;
          check('parameter', parameter, `${at} parameter ${parameter.name}`);
          if (parameter.in === 'path' && parameter.required !== true) problems.push(`${at}: path parameter ${parameter.name} must be required`);
        }
        if (operation.requestBody) {
          check('requestBody', operation.requestBody, `${at} requestBody`);
          for (const [type, media] of Object.entries(operation.requestBody.content)) check('mediaType', media, `${at} requestBody ${type}`);
        }
        for (const [status, response] of Object.entries(operation.responses)) {
          if (!/^([1-5]([0-9][0-9]|XX)|default)$/.test(status)) problems.push(`${at}: bad response key ${status}`);
          if (!('$ref' in response)) checkResponse(response, `${at} ${status}`);
        }
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('resolves every $ref', () => {
    const refs = refsIn(document);
    expect(refs.length).to.be.greaterThan(20);
    const broken = refs.filter(({ ref }) => checker.resolvePointer(ref) === undefined);
    expect(broken, JSON.stringify(broken)).to.deep.equal([]);
  });

  it('compiles every component schema and every schema of every operation in ajv (draft 2020-12, strict)', () => {
    const pointers = [
      ...Object.keys(document.components.schemas).map((name) => pointer('components', 'schemas', name)),
      ...operationSchemaPointers(document),
    ];
    const failures: string[] = [];
    for (const fragment of pointers) {
      try {
        checker.validatorAt(fragment);
      } catch (error) {
        failures.push(`#${fragment}: ${(error as Error).message}`);
      }
    }
    expect(failures).to.deep.equal([]);
  });

  it('validates its own schema examples', () => {
    const failures: string[] = [];
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      for (const example of schema.examples ?? []) {
        const validate = checker.validatorAt(pointer('components', 'schemas', name));
        if (!validate(example)) failures.push(`${name}: ${JSON.stringify(example)}`);
      }
    }
    expect(failures).to.deep.equal([]);
  });

  it('gives every operation a unique operationId, a summary, a tag, responses, and declared path parameters', () => {
    const ids = new Set<string>();
    const tags = new Set((document.tags ?? []).map((tag) => tag.name));
    for (const { path, method, operation } of operationsOf(document)) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.operationId, where).to.match(/^[a-z][A-Za-z]+$/);
      expect(ids.has(operation.operationId), `${where}: duplicate operationId`).to.equal(false);
      ids.add(operation.operationId);
      expect(operation.summary, where).to.be.a('string');
      expect(operation.tags ?? [], where).to.have.length.greaterThan(0);
      for (const tag of operation.tags ?? []) expect(tags.has(tag), `${where}: tag ${tag}`).to.equal(true);
      expect(Object.keys(operation.responses), where).to.have.length.greaterThan(0);
      const templateParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (operation.parameters ?? []).flatMap((p) => ('in' in p && p.in === 'path' ? [p.name] : []));
      expect(declared.sort(), where).to.deep.equal(templateParams.sort());
    }
  });
};

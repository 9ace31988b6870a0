/**
 * The parts of OpenAPI 3.1 (and of JSON Schema draft 2020-12, its schema dialect)
 * that Chronicle's document uses, so the document is a checked object literal.
 */

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export interface JsonSchema {
  $ref?: string;
  title?: string;
  description?: string;
  type?: JsonType | readonly JsonType[];
  enum?: readonly (string | number | boolean | null)[];
  const?: string | number | boolean | null;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  unevaluatedProperties?: boolean | JsonSchema;
  minProperties?: number;
  allOf?: readonly JsonSchema[];
  anyOf?: readonly JsonSchema[];
  oneOf?: readonly JsonSchema[];
  default?: unknown;
  examples?: readonly unknown[];
  contentMediaType?: string;
}

export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface MediaTypeObject {
  schema: JsonSchema;
  example?: unknown;
}

export interface ResponseObject {
  description: string;
  headers?: Readonly<Record<string, HeaderObject>>;
  content?: Readonly<Record<string, MediaTypeObject>>;
}

export interface ReferenceObject {
  $ref: string;
  summary?: string;
  description?: string;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
  example?: unknown;
}

export interface RequestBodyObject {
  description?: string;
  required?: boolean;
  content: Readonly<Record<string, MediaTypeObject>>;
}

export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: readonly string[];
  parameters?: readonly (ParameterObject | ReferenceObject)[];
  requestBody?: RequestBodyObject;
  responses: Readonly<Record<string, ResponseObject | ReferenceObject>>;
  security?: readonly SecurityRequirement[];
  /** The permission an API key needs (Chronicle extension); absent: any valid key, or none. */
  'x-required-permission'?: string;
  /** The permissions an API key needs depending on what it asks for (Chronicle extension; see the description). */
  'x-required-permissions'?: readonly string[];
}

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

export type PathItemObject = { summary?: string; description?: string; parameters?: readonly ParameterObject[] } & {
  [M in HttpMethod]?: OperationObject;
};

export interface SecuritySchemeObject {
  type: 'http' | 'apiKey' | 'oauth2' | 'openIdConnect' | 'mutualTLS';
  scheme?: string;
  bearerFormat?: string;
  description?: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect?: string;
  info: {
    title: string;
    version: string;
    summary?: string;
    description?: string;
    license?: { name: string; identifier?: string };
  };
  servers: readonly { url: string; description?: string }[];
  security: readonly SecurityRequirement[];
  tags?: readonly { name: string; description?: string }[];
  paths: Readonly<Record<string, PathItemObject>>;
  components: {
    schemas: Readonly<Record<string, JsonSchema>>;
    responses?: Readonly<Record<string, ResponseObject>>;
    parameters?: Readonly<Record<string, ParameterObject>>;
    headers?: Readonly<Record<string, HeaderObject>>;
    securitySchemes: Readonly<Record<string, SecuritySchemeObject>>;
  };
}

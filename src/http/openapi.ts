import { z } from 'zod';
import type { StorageFaultKind } from '../storage/errors.ts';
import { errorCodeFor } from '../lib/result.ts';
import type { WriteEndpoint } from './write-endpoint.ts';
import { accessToken } from './responses.ts';

/** A read endpoint as the OpenAPI document describes it; its query and body schemas are the ones that validate it. */
export interface ReadEndpoint {
  method: 'get' | 'post';
  path: string;
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodObject;
  /** Only keys with the audit scope may call it. */
  audit?: boolean;
  /** Error names of parameters that do not follow the field-name rule (`dateFrom` → ERROR_DATEFROM). */
  codes?: Record<string, string>;
  /** Error names it answers beyond its parameters' (a size it refuses). */
  errors?: string[];
  /** Its 200 answer (one of `responses.ts`). */
  response: z.ZodType;
  /** Asked with `Accept: text/event-stream`, it answers a stream of server-sent events, described so; with the errors only a stream has. */
  eventStream?: { description: string; headers: { name: string; description: string }[]; codes: string[] };
  /** Files it answers instead when asked (`format`): their media types and what each holds. */
  files?: Record<string, string>;
}

/** A reference to the component a response schema of `responses.ts` is generated into. */
function componentRef(schema: z.ZodType) {
  const name = (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
  if (name === undefined) throw new Error('a response schema needs an id: its component name');
  return { $ref: `#/components/schemas/${name}` };
}

/** Every schema with an id (the responses' and the records' in them), as OpenAPI components referring to each other. */
function componentSchemas(): Record<string, unknown> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { io: 'output', unrepresentable: 'any', uri: (name) => `#/components/schemas/${name}` }) as {
    schemas: Record<string, Record<string, unknown>>;
  };
  return Object.fromEntries(Object.entries(schemas).map(([name, { $schema: _s, $id: _i, ...schema }]) => [name, schema]));
}

/** What a query-string integer is (`queryInt`): on the wire digits, to a client a number. */
export interface QueryInteger {
  queryInteger: { minimum: number; maximum: number };
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema: json }) => {
      const integer = (z.globalRegistry.get(zodSchema) as Partial<QueryInteger> | undefined)?.queryInteger;
      if (integer === undefined) return;
      // The string's own keywords give way to the integer's; a default or a description stays.
      for (const key of ['type', 'pattern', 'queryInteger']) delete json[key];
      Object.assign(json, { type: 'integer', minimum: integer.minimum, maximum: integer.maximum });
    },
  }) as Record<string, unknown>;
  return rest;
}

function queryParameters(query: z.ZodObject | undefined) {
  if (!query) return [];
  const schema = jsonSchema(query) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

/** The error body of an operation: every error it can answer, `code` one of its names. */
const errorBody = (codes: string[]) => ({
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: codes },
          message: { type: 'string' },
          index: { type: 'integer', description: "the record's place in the batch, from 0" },
          field: { type: 'string' },
        },
      },
    },
  },
});

const AUTH_CODES = ['ERROR_NO_API_KEY', 'ERROR_USER_ACCESS'];
/** What the server itself may answer to any request: a malformed or slow request, too many connections, a bug. */
const SERVER_CODES = ['ERROR_BAD_REQUEST', 'ERROR_TIMEOUT', 'ERROR_HEADERS_TOO_LARGE', 'ERROR_TOO_MANY_CONNECTIONS', 'ERROR_INTERNAL'];

/** The names of the fields a schema reads (its top-level properties). */
function fieldNames(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  return Object.keys((jsonSchema(schema) as { properties?: Record<string, unknown> }).properties ?? {});
}

/**
 * Every error name an operation can answer, listed as `x-error-codes` and as the enum of its error bodies' `code`,
 * so clients and tests need no second list.
 */
const errorCodes = (fields: string[], overrides: Record<string, string>, extra: string[]) => [
  ...new Set([...extra, ...fields.map((f) => overrides[f] ?? errorCodeFor(f)), ...AUTH_CODES, ...SERVER_CODES]),
];

const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });

/** Every write path of a point-in-time copy (`rebuild --until … --into …`) answers this. */
/** A storage fault's name in an answer (503, nothing applied). */
export const STORAGE_ERRORS: Record<StorageFaultKind, string> = {
  full: 'ERROR_STORAGE_FULL',
  'read-only': 'ERROR_STORAGE_READ_ONLY',
  io: 'ERROR_STORAGE_IO',
};

/** Every write waits up to 10 s for another process's write lock, then answers this; a storage fault answers it at once. */
const busyResponse = (codes: string[]) => ({
  description:
    'Nothing was applied: another process held the write lock too long (ERROR_BUSY), or the disk is full (ERROR_STORAGE_FULL), the database cannot be written (ERROR_STORAGE_READ_ONLY) or the disk reported an error (ERROR_STORAGE_IO), or this server keeps read models of other versions than those of the database and must be upgraded or the read tables rebuilt (ERROR_READ_MODELS_DIFFER, PostgreSQL); also too many connections (ERROR_TOO_MANY_CONNECTIONS). Retry-After says when to try again.',
  content: jsonContent(errorBody(codes)),
});

/** What every step of a write may answer besides its own errors. */
const WRITE_CODES = ['ERROR_READ_ONLY', 'ERROR_BUSY', ...Object.values(STORAGE_ERRORS), 'ERROR_READ_MODELS_DIFFER'];

const readOnlyResponse = (codes: string[]) => ({ description: 'The database is a point-in-time copy and accepts no writes (ERROR_READ_ONLY)', content: jsonContent(errorBody(codes)) });

/** The error answers every operation has, each with the operation's error names. */
const standardResponses = (codes: string[]) => ({
  '400': { description: 'A parameter or the body is invalid', content: jsonContent(errorBody(codes)) },
  '401': { description: 'No key, or a key (or access token) that is unknown, revoked or expired', content: jsonContent(errorBody(codes)) },
  '500': { description: 'A fault of the server (ERROR_INTERNAL): a bug; nothing was applied', content: jsonContent(errorBody(codes)) },
});

/** `getProducts`, `addProductToken`, `updateProductPrices`: an operation's name from its method and path. */
function operationId(prefix: string, path: string, suffix = ''): string {
  const words = path.replace(/^\/api\//, '').split(/[-/]/).filter(Boolean);
  const camel = words.map((w, i) => (i === 0 && prefix === '' ? w : w[0].toUpperCase() + w.slice(1))).join('');
  return `${prefix}${camel}${suffix}`;
}

/** The OpenAPI 3.1 document of every endpoint, generated from the same zod schemas that validate requests. */
export function openApiDocument(reads: ReadEndpoint[], writes: WriteEndpoint[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of reads) {
    const codes = errorCodes([...fieldNames(r.query), ...fieldNames(r.body)], r.codes ?? {}, ['ERROR_NOT_FOUND', ...(r.errors ?? []), ...(r.eventStream?.codes ?? [])]);
    const files = Object.fromEntries(Object.entries(r.files ?? {}).map(([type, description]) => [type, { schema: { type: 'string', description } }]));
    const stream = r.eventStream;
    paths[r.path] = {
      ...paths[r.path],
      [r.method]: {
        operationId: operationId(r.method, r.path),
        summary: r.summary,
        ...(r.audit && { description: 'Only for keys with the audit scope.' }),
        parameters: [
          ...queryParameters(r.query),
          ...(stream?.headers.map(({ name, description }) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } })) ?? []),
        ],
        'x-error-codes': codes,
        ...(r.body && { requestBody: { content: jsonContent(jsonSchema(r.body)) } }),
        responses: {
          '200': {
            description: 'Success',
            content: { ...jsonContent(componentRef(r.response)), ...files, ...(stream && { 'text/event-stream': { schema: { type: 'string', description: stream.description } } }) },
          },
          '404': { description: 'The addressed record does not exist', content: jsonContent(errorBody(codes)) },
          ...(stream && { '429': { description: 'Too many streams open, for this key or in all (ERROR_TOO_MANY_STREAMS); Retry-After says when to try again', content: jsonContent(errorBody(codes)) } }),
          ...standardResponses(codes),
          '503': busyResponse(codes),
        },
      },
    };
  }
  for (const w of writes) {
    const tokenCodes = [...WRITE_CODES, ...AUTH_CODES, ...SERVER_CODES];
    const batchCodes = errorCodes(fieldNames(w.record), w.codes, [errorCodeFor(w.wrapper), 'ERROR_ACCESS_TOKEN', 'ERROR_BODY_TOO_LARGE', ...WRITE_CODES]);
    paths[w.path] = {
      get: {
        operationId: operationId('', w.path, 'Token'),
        summary: `${w.summary}: step 1, get a one-minute access token`,
        'x-error-codes': tokenCodes,
        responses: {
          '200': { description: 'A token bound to this key and path', content: jsonContent(componentRef(accessToken)) },
          ...standardResponses(tokenCodes),
          '403': readOnlyResponse(tokenCodes),
          '503': busyResponse(tokenCodes),
        },
      },
      post: {
        operationId: operationId('', w.path),
        summary: `${w.summary}: step 2, apply a batch (all or nothing)`,
        parameters: [{ name: 'X-Access-Token', in: 'header', required: true, schema: { type: 'string' } }],
        'x-error-codes': batchCodes,
        requestBody: {
          required: true,
          content: jsonContent({
            type: 'object',
            required: [w.wrapper],
            properties: { [w.wrapper]: { type: 'array', minItems: 1, maxItems: w.maxRecords, items: jsonSchema(w.record) } },
          }),
        },
        responses: {
          '200': { description: 'The processed records, in the order of the batch', content: jsonContent(componentRef(w.result)) },
          ...standardResponses(batchCodes),
          '403': readOnlyResponse(batchCodes),
          '413': { description: 'Body larger than 1 MiB', content: jsonContent(errorBody(batchCodes)) },
          '503': busyResponse(batchCodes),
        },
        description: `Batch errors name the record (index) and field; the wrapper's own error is ${errorCodeFor(w.wrapper)}.`,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'tradebook trade API',
      version: '1.0.0',
      description: 'Every request carries `Authorization: Bearer <key>`. A write is two steps: GET the path for a one-minute access token, then POST the batch with it in `X-Access-Token`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the API is where this document was served from.
    servers: [{ url: '/', description: 'this server' }],
    components: { schemas: componentSchemas(), securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } },
    security: [{ apiKey: [] }],
    paths,
  };
}

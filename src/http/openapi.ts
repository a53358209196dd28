import { z } from 'zod';
import type { StorageFaultKind } from '../storage/errors.ts';
import { errorCodeFor } from '../lib/result.ts';
import type { WriteEndpoint } from './write-endpoint.ts';

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
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
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

const errorBody = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' }, index: { type: 'integer' }, field: { type: 'string' } },
      },
    },
  },
};

const AUTH_CODES = ['ERROR_NO_API_KEY', 'ERROR_USER_ACCESS'];

/** The names of the fields a schema reads (its top-level properties). */
function fieldNames(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  return Object.keys((jsonSchema(schema) as { properties?: Record<string, unknown> }).properties ?? {});
}

/** Every error name an operation can answer, listed as `x-error-codes` so clients and tests need no second list. */
const errorCodes = (fields: string[], overrides: Record<string, string>, extra: string[]) => [
  ...new Set([...extra, ...fields.map((f) => overrides[f] ?? errorCodeFor(f)), ...AUTH_CODES]),
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
const busyResponse = {
  description:
    'Nothing was applied: another process held the write lock too long (ERROR_BUSY), or the disk is full (ERROR_STORAGE_FULL), the database cannot be written (ERROR_STORAGE_READ_ONLY) or the disk reported an error (ERROR_STORAGE_IO)',
  content: jsonContent(errorBody),
};

/** What every step of a write may answer besides its own errors. */
const WRITE_CODES = ['ERROR_READ_ONLY', 'ERROR_BUSY', ...Object.values(STORAGE_ERRORS)];

const readOnlyResponse = { description: 'The database is a point-in-time copy and accepts no writes (ERROR_READ_ONLY)', content: jsonContent(errorBody) };

const standardResponses = {
  '400': { description: 'A parameter or the body is invalid', content: jsonContent(errorBody) },
  '401': { description: 'No key, or a key (or access token) that is unknown, revoked or expired', content: jsonContent(errorBody) },
};

/** The OpenAPI 3.1 document of every endpoint, generated from the same zod schemas that validate requests. */
export function openApiDocument(reads: ReadEndpoint[], writes: WriteEndpoint[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of reads) {
    paths[r.path] = {
      ...paths[r.path],
      [r.method]: {
        summary: r.summary,
        ...(r.audit && { description: 'Only for keys with the audit scope.' }),
        parameters: queryParameters(r.query),
        'x-error-codes': errorCodes([...fieldNames(r.query), ...fieldNames(r.body)], r.codes ?? {}, []),
        ...(r.body && { requestBody: { content: jsonContent(jsonSchema(r.body)) } }),
        responses: {
          '200': { description: 'Success', content: jsonContent({ type: 'object' }) },
          '404': { description: 'The addressed record does not exist', content: jsonContent(errorBody) },
          ...standardResponses,
        },
      },
    };
  }
  for (const w of writes) {
    paths[w.path] = {
      get: {
        summary: `${w.summary}: step 1, get a one-minute access token`,
        'x-error-codes': [...WRITE_CODES, ...AUTH_CODES],
        responses: {
          '200': {
            description: 'A token bound to this key and path',
            content: jsonContent({
              type: 'object',
              properties: { data: { type: 'object', properties: { access_token: { type: 'string' }, expired: { type: 'string', description: 'YYYY-MM-DD HH:MM:SS, Moscow time' } } } },
            }),
          },
          '401': standardResponses['401'],
          '403': readOnlyResponse,
          '503': busyResponse,
        },
      },
      post: {
        summary: `${w.summary}: step 2, apply a batch (all or nothing)`,
        parameters: [{ name: 'X-Access-Token', in: 'header', required: true, schema: { type: 'string' } }],
        'x-error-codes': errorCodes(fieldNames(w.record), w.codes, [errorCodeFor(w.wrapper), 'ERROR_ACCESS_TOKEN', 'ERROR_BODY_TOO_LARGE', ...WRITE_CODES]),
        requestBody: {
          required: true,
          content: jsonContent({
            type: 'object',
            required: [w.wrapper],
            properties: { [w.wrapper]: { type: 'array', minItems: 1, maxItems: w.maxRecords, items: jsonSchema(w.record) } },
          }),
        },
        responses: {
          '200': { description: 'The processed records, in the order of the batch', content: jsonContent({ type: 'object', properties: { data: { type: 'array' } } }) },
          ...standardResponses,
          '403': readOnlyResponse,
          '413': { description: 'Body larger than 1 MiB', content: jsonContent(errorBody) },
          '503': busyResponse,
        },
        description: `Batch errors name the record (index) and field; the wrapper's own error is ${errorCodeFor(w.wrapper)}.`,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'tradebook trade API', version: '1.0.0' },
    components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer' } } },
    security: [{ apiKey: [] }],
    paths,
  };
}

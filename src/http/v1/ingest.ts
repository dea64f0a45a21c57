/**
 * POST /v1/ingest (docs/api.md, Data and ingest; docs/api.md, Subscriptions, events, ingest): the same ingest path as the CLI, one atomic
 * transaction per request. The body is NDJSON (application/x-ndjson) or a JSON array of records
 * (application/json), UTF-8, uncompressed, at most 10 MB (a larger Content-Length is refused
 * before reading) and at most 100,000 records (counted while parsing). An invalid batch is 400
 * invalid_body with `details` [{line, error}] (for an array, line = 1-based index) and nothing of
 * it is written. Parsing, validation and writing yield to the event loop (docs/api.md, Ingest limits).
 */
import { z } from 'zod';
import getRawBody from 'raw-body';
import { ingestRecord } from '../../domain/records.js';
import { errors, type ErrorDetail } from '../../errors.js';
import { ApiRouter } from '../route.js';
import { MAX_BODY_BYTES, refuseCharset, refuseContentEncoding } from '../body.js';
import { IngestRejected, type LineError } from '../../services/ingest.js';
import { MAX_INGEST_RECORDS, NotJsonArray, parseJsonArrayChunked, parseNdjsonChunked, TooManyRecords, type Parsed } from '../../services/ingest-parse.js';
import type { AppContext } from '../types.js';
import type { Services } from '../../services/index.js';
import { ingested, ingestedExample } from './schemas/subscriptions.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

type Format = 'ndjson' | 'array';

function bodyFormat(ctx: AppContext): Format {
  refuseContentEncoding(ctx);
  const type = ctx.request.is('application/x-ndjson', 'application/json');
  if (type !== 'application/x-ndjson' && type !== 'application/json') {
    throw errors.unsupportedMediaType('the body must be application/x-ndjson or application/json (an array of records)');
  }
  refuseCharset(ctx);
  return type === 'application/json' ? 'array' : 'ndjson';
}

async function readBody(ctx: AppContext): Promise<string> {
  const declared = ctx.get('content-length');
  if (declared !== '') {
    if (!/^[0-9]+$/.test(declared)) throw errors.invalidBody('Content-Length is not a valid length');
    if (declared.length > 16 || Number(declared) > MAX_BODY_BYTES) throw errors.payloadTooLarge();
  }
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, ...(declared !== '' ? { length: declared } : {}) });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw errors.payloadTooLarge();
    throw errors.invalidBody('the request body could not be read');
  }
  try {
    return utf8.decode(raw);
  } catch {
    throw errors.invalidBody('the body is not valid UTF-8');
  }
}

/**
 * The route's body reader: the numbered values of the body, or a 415 for another format, a 413
 * over 10 MB, a 400 for a body that is not JSON at all or has too many records.
 */
async function readRecords(ctx: AppContext): Promise<Parsed> {
  const format = bodyFormat(ctx);
  const text = await readBody(ctx);
  try {
    return format === 'ndjson' ? await parseNdjsonChunked(text) : await parseJsonArrayChunked(text);
  } catch (err) {
    if (err instanceof TooManyRecords || err instanceof NotJsonArray) throw errors.invalidBody(err.message);
    throw err;
  }
}

const rejected = (lines: readonly LineError[]) =>
  errors.invalidBody(`the batch has invalid records; nothing was written (first: line ${lines[0]!.line}: ${lines[0]!.error})`, {
    details: lines.map((e): ErrorDetail => ({ line: e.line, error: e.error })),
  });

export function ingestRouter(deps: { services: Pick<Services, 'ingest'> }): ApiRouter {
  const api = new ApiRouter();
  api.add(
    {
      method: 'post',
      path: '/v1/ingest',
      access: 'key',
      tag: 'ingest',
      scope: 'ingest',
      body: z.array(ingestRecord).max(MAX_INGEST_RECORDS),
      readBody: readRecords,
      bodyMediaTypes: ['application/x-ndjson', 'application/json'],
      response: ingested,
      example: ingestedExample,
      summary: 'Ingest a batch of records (NDJSON or a JSON array), all or nothing',
    },
    async ({ body: parsed }) => {
      const ingest = deps.services.ingest;
      let records;
      try {
        records = await ingest.validate(parsed.values);
      } catch (err) {
        if (!(err instanceof IngestRejected)) throw err;
        // Report the records that are JSON but invalid too, in line order.
        throw rejected([...parsed.errors, ...err.errors].sort((a, b) => a.line - b.line).slice(0, 101));
      }
      if (parsed.errors.length > 0) throw rejected(parsed.errors.slice(0, 101));
      return ingest.writeSliced(records);
    },
  );
  return api;
}

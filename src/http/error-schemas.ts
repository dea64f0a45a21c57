/**
 * The error envelope (docs/api.md, Conventions) as zod schemas, for /openapi.json: the API form, and
 * the /udf form that adds `s` and `errmsg` for the TradingView adapter (which reads the body, not
 * the status).
 */
import { z } from 'zod';

const errorBody = z.strictObject({
  code: z.string().describe('Machine-readable code, e.g. invalid_parameter, token_not_found, rate_limited'),
  message: z.string().describe('What went wrong, for people'),
  param: z.string().optional().describe('The parameter or body field at fault, when there is one'),
  details: z
    .array(
      z.strictObject({
        line: z.int().min(1).optional().describe('1-based line (NDJSON) or item (JSON array) of the body'),
        index: z.int().min(0).optional(),
        error: z.string().describe('What is wrong with it'),
      }),
    )
    .optional()
    .describe('Per-item errors (an ingest batch)'),
  requestId: z.string().describe('The X-Request-Id of the request'),
});

export const apiErrorSchema = z.strictObject({ error: errorBody }).describe('The error envelope');

export const udfErrorSchema = z
  .strictObject({ s: z.literal('error'), errmsg: z.string().describe('The message, for the UDF adapter'), error: errorBody })
  .describe('The error envelope in the UDF form');

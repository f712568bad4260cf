/** Schemas every route shares: list queries, the page envelope, the error shapes. */
import * as z from 'zod';
import { numberProblem } from './json-limits.js';
import { singleLineText } from './text.js';

/**
 * The instants the contract can render: ISO 8601 with an offset whose UTC form stays in
 * years 0001–9999 (beyond them toISOString() writes "+010000-…" or "-000001-…", which is
 * not ISO 8601 date-time any more).
 */
const MIN_INSTANT_MS = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');
export const instantInRange = (ms: number): boolean => ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS;

// (A string the format check already refused parses to NaN and is not reported twice.)
export const timestamp = z.iso.datetime({ offset: true }).refine((s) => Number.isNaN(Date.parse(s)) || instantInRange(Date.parse(s)), {
  message: 'Date-time must fall within years 0001–9999 once converted to UTC',
  params: { type: 'datetime_out_of_range' },
});

/** limit: integer 1–200, default 50 (query strings arrive as text). */
const limitParam = z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), z.int().min(1).max(200));

export const pageQuery = z.strictObject({
  limit: limitParam.optional().default(50),
  cursor: singleLineText({ min: 1, max: 2048 }).optional(),
});

export const cursorPage = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });

export const validationErrorSchema = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.int()])),
        msg: z.string(),
        type: z.string(),
        input: z.unknown().optional(),
        ctx: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
  })
  .meta({ id: 'ValidationError' });

export const errorSchema = z.object({ detail: z.string(), code: z.string(), request_id: z.string().optional() }).meta({ id: 'Error' });

/**
 * The error shape plus the fields one route's error adds (a 409 naming the existing
 * contact, …): a route declares it for that status, so the OpenAPI document shows the
 * fields and the e2e client accepts them there and nowhere else. The fields are optional:
 * the same status may also come from the shared machinery (an idempotency 409) without them.
 */
export const errorWith = (id: string, fields: Record<string, z.ZodType>) =>
  z.object({ ...errorSchema.shape, ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) }).meta({ id });

export const healthSchema = z.record(z.string(), z.string());

/**
 * A free-form JSON object the server stores (contact attributes, consent scope, …): every
 * key is stored exactly as sent, or the request is refused naming it. The body check
 * (shared/schemas/json-limits.ts) already refused what no JSON store could hold (`__proto__`
 * keys, lone surrogates, numbers DynamoDB cannot store); the number check runs here too so
 * the schema stands on its own. Added here: DynamoDB refuses an empty map key; nesting at
 * most `maxDepth` levels; serialised size at most `maxBytes`.
 */
export const storableObject = (opts: { maxBytes: number; maxDepth: number; minProperties?: number; what: string }) =>
  z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (opts.minProperties && Object.keys(value).length < opts.minProperties) {
      ctx.addIssue({
        code: 'custom',
        message: `${opts.what} must name at least ${opts.minProperties} property; there is no default`,
        params: { type: 'too_short', ctx: { min_length: opts.minProperties } },
      });
      return;
    }
    const problem = storableProblem(value, opts.maxDepth);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: `${opts.what}: ${problem.msg}`, path: problem.path, params: { type: problem.type } });
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > opts.maxBytes) {
      ctx.addIssue({
        code: 'custom',
        message: `${opts.what} is ${bytes} bytes as JSON; at most ${opts.maxBytes} are allowed`,
        params: { type: 'json_too_large', ctx: { max_bytes: opts.maxBytes } },
      });
    }
  });

function storableProblem(
  value: unknown,
  maxDepth: number,
  path: (string | number)[] = [],
  depth = 1,
): { path: (string | number)[]; msg: string; type: string } | undefined {
  if (typeof value === 'number') {
    const p = numberProblem(value);
    return p && { path, ...p };
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (depth > maxDepth) return { path, msg: `nesting deeper than ${maxDepth} levels`, type: 'json_too_deep' };
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  for (const [k, v] of entries) {
    if (k === '') return { path: [...path, k], msg: 'keys must not be empty (DynamoDB cannot store an empty map key)', type: 'key_empty' };
    if (k === '__proto__') return { path: [...path, k], msg: "'__proto__' cannot be used as a key", type: 'key_reserved' };
    const found = storableProblem(v, maxDepth, [...path, k], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Schemas every route shares: list queries, the page envelope, the error shapes. */
import * as z from 'zod';

export const timestamp = z.iso.datetime({ offset: true });

/** limit: integer 1–200, default 50 (query strings arrive as text). */
export const limitParam = z.preprocess(
  (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
  z.int().min(1).max(200),
);

export const pageQuery = z.strictObject({
  limit: limitParam.optional().default(50),
  cursor: z.string().min(1).max(2048).optional(),
});

export const cursorPage = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });

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

export const errorSchema = z
  .object({ detail: z.string(), code: z.string(), request_id: z.string().optional() })
  .meta({ id: 'Error' });

export const healthSchema = z.record(z.string(), z.string());

/**
 * A free-form JSON object the server stores (contact attributes, consent scope): only
 * what DynamoDB can hold faithfully. Numbers must be finite and exact (|n| ≤ 2^53 − 1 for
 * integers), nesting at most `maxDepth` deep, serialised size at most `maxBytes`.
 */
export const storableObject = (opts: { maxBytes: number; maxDepth: number; minProperties?: number; what: string }) =>
  z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (opts.minProperties && Object.keys(value).length < opts.minProperties) {
      ctx.addIssue({ code: 'custom', message: `${opts.what} must name at least ${opts.minProperties} property; there is no default`, params: { type: 'too_short', ctx: { min_length: opts.minProperties } } });
      return;
    }
    const problem = storableProblem(value, opts.maxDepth);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: `${opts.what}: ${problem.msg}`, path: problem.path, params: { type: problem.type } });
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > opts.maxBytes) {
      ctx.addIssue({ code: 'custom', message: `${opts.what} is ${bytes} bytes as JSON; at most ${opts.maxBytes} are allowed`, params: { type: 'json_too_large', ctx: { max_bytes: opts.maxBytes } } });
    }
  });

function storableProblem(value: unknown, maxDepth: number, path: (string | number)[] = [], depth = 1): { path: (string | number)[]; msg: string; type: string } | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { path, msg: 'numbers must be finite', type: 'finite_number' };
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return { path, msg: 'integers must be within ±(2^53 − 1) to be stored exactly', type: 'number_too_large' };
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (depth > maxDepth) return { path, msg: `nesting deeper than ${maxDepth} levels`, type: 'json_too_deep' };
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  for (const [k, v] of entries) {
    // The SDK's marshaller assigns keys onto plain objects, so this one would vanish.
    if (k === '__proto__') return { path: [...path, k], msg: "'__proto__' is a reserved key", type: 'key_reserved' };
    const found = storableProblem(v, maxDepth, [...path, k], depth + 1);
    if (found) return found;
  }
  return undefined;
}

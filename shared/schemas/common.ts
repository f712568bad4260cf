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

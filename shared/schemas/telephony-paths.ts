import * as z from 'zod';

export const accountPath = z.object({ account_id: z.string().min(1).max(64) });

/** Reps: the people a call or an answering policy may transfer to. Numbers are never rendered. */
import * as z from 'zod';
import { timestamp } from './common.js';

export const REP_STATUSES = ['active', 'disabled'] as const;

export const repSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(REP_STATUSES),
    transfer_enabled: z.boolean().describe('The rep has a transfer number on file (it is never rendered)'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Rep' });

export type RepSummary = z.infer<typeof repSummary>;

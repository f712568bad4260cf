/** POST …/answering-policy/simulate: which step list applies at an instant, and where key presses lead. */
import * as z from 'zod';
import { DTMF_KEYS, WEEKDAYS } from '../policy/answering/model.js';
import { timestamp } from './common.js';

export const simulationRequest = z
  .strictObject({
    at: timestamp.optional().describe('The instant to evaluate (default: now)'),
    digits: z
      .array(z.enum(DTMF_KEYS))
      .max(50)
      .default([])
      .describe('Keys the caller presses, one per menu prompt, in order; a menu with no key left times out'),
    reps_answer: z.boolean().default(true).describe('Whether reps a ring_humans step rings pick up (false follows the no-answer path)'),
  })
  .meta({ id: 'AnsweringPolicySimulationRequest' });

const path = z.array(z.union([z.string(), z.int()]));

export const simulationResult = z
  .object({
    policy_version: z.int(),
    at: timestamp,
    schedule: z.object({
      list: z.enum(['open', 'closed']),
      reason: z.enum(['holiday', 'always_open', 'within_hours', 'outside_hours']),
      local: z.object({ date: z.string(), weekday: z.enum(WEEKDAYS), time: z.string() }),
      window: z.object({ start: z.string(), end: z.string() }).nullable(),
    }),
    trace: z.array(
      z.object({
        step_path: z.string(),
        path,
        type: z.enum(['menu', 'ring_humans', 'ai', 'voicemail', 'hangup']),
        digit: z.string().nullable().optional(),
        outcome: z.string().optional(),
        invalid_attempts: z.int().optional(),
        rep_ids: z.array(z.string()).optional(),
        timeout_seconds: z.int().optional(),
      }),
    ),
    terminal: z.object({
      type: z.enum(['end', 'ai', 'ring_humans', 'voicemail', 'hangup']),
      step_path: z.string().nullable(),
      step: z.record(z.string(), z.unknown()).optional(),
      on_no_answer: z.string().nullable().optional(),
    }),
    unused_digits: z.array(z.string()),
  })
  .meta({ id: 'AnsweringPolicySimulation' });

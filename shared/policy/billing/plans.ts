/**
 * Plans: platform data (seeded into `PLATFORM#PLANS` by shared/seed/platform.ts; every new
 * tenant starts on DEFAULT_PLAN_ID; `npm run admin -- plan list | plan assign`). Prices are
 * in minor units of `currency`; rates are decimal strings (a minute may cost 1.25 cents),
 * amounts are integers. Pure data and a schema.
 */
import * as z from 'zod';
import { METERS, type Meter, PLAN_BILLING_CLASSES } from './meters.js';

const decimal = z.string().regex(/^\d+(\.\d+)?$/, 'a non-negative decimal string');

const meterPriceSchema = z.strictObject({
  billing: z.enum(PLAN_BILLING_CLASSES),
  /** Included in the base price each period (null: nothing included). */
  included_quantity: decimal.nullable(),
  /** Price per unit beyond the included quantity, minor units (null: not priced yet → unpriced_meters). */
  unit_price_minor: decimal.nullable(),
});

const minuteTiersSchema = z.strictObject({
  base_minute_rate_minor: decimal,
  discount_per_bracket_minor: decimal,
  floor_minute_rate_minor: decimal,
  /** Each time the period's minute spend crosses a multiple of this, the rate drops by the discount (never below the floor). */
  bracket_size_minor: z.int().min(1),
  /** A negotiated rate: every billable minute at this rate, no brackets. */
  pinned_minute_rate_minor: decimal.nullable(),
});

export const planSchema = z.strictObject({
  id: z.string().regex(/^plan_[a-z0-9_]{1,40}$/),
  label: z.string().min(1).max(60),
  currency: z.string().regex(/^[a-z]{3}$/),
  base_price_minor: z.int().min(0),
  trial_days: z.int().min(0).max(365),
  /** A fee per billed call (the minutes meter's event count), minor units. */
  call_fee_minor: decimal,
  meters: z.record(z.enum(METERS), meterPriceSchema),
  minute_tiers: minuteTiersSchema,
  /** Receptionist connections: monthly price each, and how many inbound connections the plan includes. */
  receptionist_connection_price_minor: z.int().min(0),
  included_inbound_connections: z.int().min(0),
});
export type Plan = z.output<typeof planSchema>;
export type MinuteTiers = Plan['minute_tiers'];

export const DEFAULT_PLAN_ID = 'plan_starter';

const meters = (over: Partial<Record<Meter, z.input<typeof meterPriceSchema>>>): Plan['meters'] => ({
  telephony_minutes: { billing: 'billed', included_quantity: '100', unit_price_minor: null },
  stt_audio_seconds: { billing: 'billed', included_quantity: '6000', unit_price_minor: '0.04' },
  tts_characters: { billing: 'billed', included_quantity: '100000', unit_price_minor: '0.003' },
  llm_prompt_tokens: { billing: 'billed', included_quantity: '1000000', unit_price_minor: '0.00025' },
  llm_cached_prompt_tokens: { billing: 'billed', included_quantity: null, unit_price_minor: '0.0000625' },
  llm_completion_tokens: { billing: 'billed', included_quantity: '200000', unit_price_minor: '0.001' },
  gpu_seconds: { billing: 'internal', included_quantity: null, unit_price_minor: null },
  sms_segments: { billing: 'billed', included_quantity: '100', unit_price_minor: '1.2' },
  lookup_requests: { billing: 'bundled', included_quantity: null, unit_price_minor: null },
  ...over,
});

/** The seeded catalog. A change here is seeded on the next start/deploy (content-hashed). */
export const PLANS: readonly Plan[] = [
  {
    id: 'plan_starter',
    label: 'Starter',
    currency: 'usd',
    base_price_minor: 4900,
    trial_days: 14,
    call_fee_minor: '0',
    meters: meters({}),
    minute_tiers: {
      base_minute_rate_minor: '12',
      discount_per_bracket_minor: '1',
      floor_minute_rate_minor: '8',
      bracket_size_minor: 50_000,
      pinned_minute_rate_minor: null,
    },
    receptionist_connection_price_minor: 1500,
    included_inbound_connections: 1,
  },
  {
    id: 'plan_growth',
    label: 'Growth',
    currency: 'usd',
    base_price_minor: 29900,
    trial_days: 0,
    call_fee_minor: '0.5',
    meters: meters({
      telephony_minutes: { billing: 'billed', included_quantity: '1000', unit_price_minor: null },
      sms_segments: { billing: 'billed', included_quantity: '1000', unit_price_minor: '1' },
    }),
    minute_tiers: {
      base_minute_rate_minor: '10',
      discount_per_bracket_minor: '0.5',
      floor_minute_rate_minor: '7',
      bracket_size_minor: 100_000,
      pinned_minute_rate_minor: null,
    },
    receptionist_connection_price_minor: 1200,
    included_inbound_connections: 3,
  },
  {
    id: 'plan_enterprise_pinned',
    label: 'Enterprise (pinned rate)',
    currency: 'usd',
    base_price_minor: 99900,
    trial_days: 0,
    call_fee_minor: '0',
    meters: meters({
      telephony_minutes: { billing: 'billed', included_quantity: '0', unit_price_minor: null },
      gpu_seconds: { billing: 'billed', included_quantity: '0', unit_price_minor: '0.05' },
    }),
    minute_tiers: {
      base_minute_rate_minor: '10',
      discount_per_bracket_minor: '0.5',
      floor_minute_rate_minor: '7',
      bracket_size_minor: 100_000,
      pinned_minute_rate_minor: '6.5',
    },
    receptionist_connection_price_minor: 1000,
    included_inbound_connections: 5,
  },
].map((p) => planSchema.parse(p));

export const planById = (id: string): Plan | undefined => PLANS.find((p) => p.id === id);

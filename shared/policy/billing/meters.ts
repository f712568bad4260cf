/**
 * The usage meters (see docs/decisions/billing.md; the contract "Usage summary"), in registry order. Pure data.
 *
 * Carrier meters are what a carrier bills: under a byo telephony account the tenant's own
 * carrier bills them (`carrier_billed`), so no ledger row is written for them.
 */
export const METERS = [
  'telephony_minutes',
  'stt_audio_seconds',
  'tts_characters',
  'llm_prompt_tokens',
  'llm_cached_prompt_tokens',
  'llm_completion_tokens',
  'gpu_seconds',
  'sms_segments',
  'lookup_requests',
] as const;
export type Meter = (typeof METERS)[number];

const CARRIER_METERS: readonly Meter[] = ['telephony_minutes', 'sms_segments', 'lookup_requests'];
export const isCarrierMeter = (meter: Meter): boolean => CARRIER_METERS.includes(meter);

/** What a plan may say of a meter; `carrier_billed` is never a plan's choice: it follows from a byo account. */
export const PLAN_BILLING_CLASSES = ['billed', 'bundled', 'internal'] as const;
export const BILLING_CLASSES = ['billed', 'bundled', 'internal', 'carrier_billed'] as const;
export type BillingClass = (typeof BILLING_CLASSES)[number];

/** How a ledger row is settled: `billed` rows count in estimates and invoices; `sandbox` rows (mock calls and texts) are metered apart. */
export type Settlement = 'billed' | 'sandbox';

export const TELEPHONY_MODES = ['managed', 'byo', 'mixed', 'unelected'] as const;
export type TelephonyModeSummary = (typeof TELEPHONY_MODES)[number];

export const EXCLUDED_USAGE_TYPES = ['byo_carrier_usage', 'separately_settled_prepaid_test_calls'] as const;
export type ExcludedUsageType = (typeof EXCLUDED_USAGE_TYPES)[number];

/** The tenant's telephony mode from its accounts' modes. */
export function telephonyModeOf(accountModes: readonly ('managed' | 'byo')[]): TelephonyModeSummary {
  const managed = accountModes.includes('managed');
  const byo = accountModes.includes('byo');
  if (managed && byo) return 'mixed';
  if (managed) return 'managed';
  if (byo) return 'byo';
  return 'unelected';
}

/** Billable minutes of a call: whole minutes, rounded up (a 61-second call is 2 minutes; 0 seconds is 0). */
export function billableMinutes(durationSeconds: number): number {
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) return 0;
  return Math.ceil(durationSeconds / 60);
}

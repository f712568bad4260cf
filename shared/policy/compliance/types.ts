/**
 * The compliance engine's inputs and decision (see docs/decisions/calls-and-compliance.md). Repositories gather the inputs;
 * handlers and workers call evaluate() and store the decision verbatim.
 */
import type { CallingWindow } from '../calling-window.js';
import type { ConsentBasis } from '../consent-strength.js';

/** Bumped whenever a rule, a window or a threshold changes, so stored decisions say which rules judged them. */
export const RULE_SET_VERSION = 'us-voice-2026.11.2';

export type CallPurpose = 'marketing' | 'informational';

export interface ContactFacts {
  phone_e164: string;
  /** IANA zone the tenant recorded for the contact, if any. */
  timezone: string | null;
  /** Free-form jurisdiction tags; entries of the form US-XX name US states and territories. */
  jurisdictions: readonly string[];
  consents: readonly ConsentFacts[];
}

export interface ConsentFacts {
  basis: ConsentBasis;
  /** As stored: purposes (string[]), optional channels (string[]), optional seller (string). */
  scope: Readonly<Record<string, unknown>>;
  captured_at: string;
  expires_at: string | null;
}

/** The agent version's frozen copy of its compliance profile. */
export interface ProfileFacts {
  call_purpose: CallPurpose;
  subject: string;
  seller_name: string;
  calling_window: CallingWindow | null;
}

export interface SanRefFacts {
  san: string;
  area_codes: readonly string[];
}

/** The National DNC snapshot for the number's area code, or the fact that none is loaded. */
export type DncSnapshotFacts = { loaded: false } | { loaded: true; as_of: string; listed: boolean };

export interface AttemptFacts {
  placed_at: string;
  subject: string;
}

/** What is judged: a call (the default) or a text message (see docs/decisions/messaging.md). */
export type Channel = 'voice' | 'sms';

export interface ComplianceInputs {
  /** Absent = voice. A text is judged by the same rules except: consent scope `channels` (when given) must include `sms`, and the time rules apply to marketing texts only. */
  channel?: Channel;
  contact: ContactFacts;
  /** null when the agent version was published without a compliance profile. */
  profile: ProfileFacts | null;
  /** SAN refs of the telephony account that would place the call. */
  san_refs: readonly SanRefFacts[];
  /** Whether the number has an active entry on the tenant's suppression list. */
  suppressed: boolean;
  dnc_snapshot: DncSnapshotFacts;
  /** Calls already placed to this number (any agent of the tenant); older ones are ignored. */
  recent_attempts: readonly AttemptFacts[];
}

export const BLOCK_CODES = [
  'internal_dnc',
  'national_dnc',
  'dnc_no_san',
  'dnc_registry_missing',
  'dnc_registry_stale',
  'compliance_profile_missing',
  'consent_missing',
  'consent_insufficient',
  'consent_scope_mismatch',
  'jurisdiction_unsupported',
  'no_permitted_time',
] as const;
export const DEFER_CODES = ['quiet_hours', 'state_quiet_hours', 'state_sunday_ban', 'state_frequency_cap', 'calling_window'] as const;

type BlockCode = (typeof BLOCK_CODES)[number];
type DeferCode = (typeof DEFER_CODES)[number];
export type ReasonCode = BlockCode | DeferCode;

export type Disposition = 'dnc_hit' | 'scrub_blocked' | 'blocked_by_policy';

export interface ComplianceReason {
  code: ReasonCode;
  /** Says what happened and what to do about it. */
  message: string;
  zone?: string;
  /** HH:MM in `zone` at the evaluated instant. */
  local_time?: string;
  weekday?: string;
  state?: string;
  window?: CallingWindow;
  area_code?: string;
  as_of?: string;
  subject?: string;
  attempts?: number;
  /** For state_frequency_cap: when this reason stops holding. */
  until?: string;
}

export interface ComplianceDecision {
  outcome: 'allow' | 'defer' | 'block';
  /** Set only for block. */
  disposition: Disposition | null;
  reasons: ComplianceReason[];
  /** Set only for defer: the earliest instant at or after evaluated_at when no defer reason holds. */
  next_permitted_at: string | null;
  callee: { zones: string[]; states: string[] };
  /** From the profile; null when there is none. */
  call_purpose: CallPurpose | null;
  evaluated_at: string;
  rule_set_version: string;
}

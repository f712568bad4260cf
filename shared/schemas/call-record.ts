/**
 * The stored call record's type, apart from the store that reads and writes it, so pure
 * modules (the presenter, the facts the analysis scores) need not import a repository.
 */
import type { CallState } from '../policy/call-state/machine.js';
import type { InboundRouteMode } from '../policy/telephony-states.js';

/** One thing the carrier did on an inbound call, in order (what `sandbox call` prints too). */
export type InboundPathEntry = Record<string, unknown> & { action: string };

export interface CallRecord {
  id: string;
  tenant_id: string;
  direction: 'inbound' | 'outbound';
  state: CallState;
  disposition: string | null;
  disposition_set_by: 'carrier' | 'agent_llm' | 'compliance' | 'system' | null;
  end_reason: string | null;
  from_e164: string;
  to_e164: string;
  phone_number_id: string | null;
  telephony_account_id: string;
  provider: 'twilio' | 'mock';
  /** null on an outbound call until it is dialled. */
  provider_call_sid: string;
  inbound: {
    route_mode: InboundRouteMode | null;
    policy_version: number | null;
    schedule: 'open' | 'closed' | null;
    agent_id: string | null;
    agent_version_id: string | null;
    /** The voicemail greeting played (voicemail route). */
    greeting: string | null;
    path: InboundPathEntry[];
  } | null;
  recording_url: string | null;
  answered_at: string | null;
  ended_at: string | null;
  duration_seconds: number | null;
  created_at: string;
  updated_at: string;
  /* ---- outbound calls (written at queue time by POST /v1/calls; absent on inbound ones) ---- */
  attempt_id?: string;
  contact_id?: string;
  agent_id?: string;
  agent_version_id?: string;
  campaign_id?: string | null;
  origin?: string;
  questions?: { id: string; prompt: string }[];
  context?: Record<string, string>;
  compliance?: Record<string, unknown> | null;
  scheduled_for?: string | null;
  idempotency_key?: string | null;
  telephony?: {
    provider: string | null;
    telephony_account_id: string | null;
    phone_number_id: string | null;
    from_e164: string | null;
    provider_call_sid: string | null;
    mock: boolean;
  };
  dialing_at?: string | null;
  /** The instant of its due item while scheduled (shared/repositories/outbound-calls.ts). */
  due_at?: string | null;
  /** The stored success evaluation (shared/policy/analysis/stored.ts), once scored. */
  analysis?: unknown;
  /** The instant of the call's unfinished watch while the carrier has it and has not ended it (shared/repositories/call-watches.ts). */
  unfinished_watch_at?: string | null;
  /** A campaign attempt that ended while its carrier leg still played: its slot is freed at the final callback. */
  campaign_slot_held?: boolean;
  /** The instant of its analysis watch, from the end of the call until its analysis is stored. */
  analysis_watch_at?: string | null;
}

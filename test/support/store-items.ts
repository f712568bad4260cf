/**
 * Items as the stores write them, for unit tests that seed the in-memory table
 * (document-client-mock.ts memoryTable): one definition per item shape, so a change to
 * the shape is made once.
 */
import { callKeys, keys, platformKeys, suppressionKeys } from '../../shared/db/keys.js';
import type { CandidateNumber } from '../../shared/policy/caller-number.js';

/** The ACTIVE suppression item of a number: what the call path reads to refuse a dial. */
export const activeSuppressionItem = (tenantId: string, phone: string) => ({
  ...suppressionKeys.active(tenantId, phone),
  id: 'sup_01JDDDDDDDDDDDDDDDDDDDDDDD',
  phone_e164: phone,
  reason: 'opt_out',
  status: 'active',
  source: 'api',
  created_at: '2026-11-01T00:00:00Z',
});

/** A telephony account as the caller choice reads it (a verified mock account whose SANs cover nothing, unless told). */
export const telephonyAccountItem = (tenantId: string, accountId: string, over: Record<string, unknown> = {}) => ({
  ...keys.telephonyAccount(tenantId, accountId),
  type: 'telephony_account',
  id: accountId,
  verification_status: 'mock_verified',
  ftc_san_refs: [],
  provider: 'mock',
  ...over,
});

/** A number as the caller choice reads it: active, clean, voice only, no dials yet (the pure tests' candidate too). */
export const candidateNumber = (over: Partial<CandidateNumber> & Pick<CandidateNumber, 'id'>): CandidateNumber => ({
  phone_e164: '+12125550100',
  telephony_account_id: 'tac_a',
  status: 'active',
  capabilities: ['voice'],
  reputation_state: 'clean',
  daily_dial_cap: null,
  dials_day: null,
  dials_count: 0,
  created_at: '2026-01-01T00:00:00Z',
  ...over,
});

/** The stored phone number of `accountId` (a candidate number, no 10DLC campaign unless told). */
export const phoneNumberItem = (tenantId: string, numberId: string, accountId: string, phone: string, over: Record<string, unknown> = {}) => ({
  ...keys.phoneNumber(tenantId, numberId),
  type: 'phone_number',
  ...candidateNumber({ id: numberId, phone_e164: phone, telephony_account_id: accountId, created_at: '2026-11-01T00:00:00Z' }),
  a2p_campaign_ref: null,
  ...over,
});

/** The National DNC pointer of an area code: a loaded snapshot of generation g1 as of `asOf`. */
export const dncPointerItem = (areaCode: string, asOf: string, numbers = 1) => ({
  ...platformKeys.dncPointer(areaCode),
  area_code: areaCode,
  generation: 'g1',
  as_of: asOf,
  numbers,
  loaded_at: `${asOf}T00:00:00Z`,
});

/** An outbound call item (dialled, linked to `provider_call_sid` when given), with `fields` over it. */
export const outboundCallItem = (tenantId: string, callId: string, fields: Record<string, unknown> = {}) => ({
  ...callKeys.call(tenantId, callId),
  type: 'call',
  tenant_id: tenantId,
  id: callId,
  direction: 'outbound',
  attempt_id: 'att_1',
  contact_id: 'con_1',
  campaign_id: null,
  provider_call_sid: null,
  telephony: {},
  ...fields,
});

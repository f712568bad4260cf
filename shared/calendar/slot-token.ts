/**
 * Handoff booking slots as opaque, signed, short-lived ids (pure; the instant is passed in).
 * A slot id carries the tenant, the handoff, the slot's start and end and its expiry, and is
 * signed with HMAC-SHA256 under the app secret (the cursor key, with a domain label of its
 * own so a cursor can never pass for a slot or the reverse). A changed byte, another
 * tenant's or another handoff's slot, or an expired one is refused, each with its reason.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SLOT_TTL_MS = 10 * 60_000;
const DOMAIN = 'handoff-slot.v1';

export interface SlotClaim {
  tenantId: string;
  handoffId: string;
  startsAt: string;
  endsAt: string;
  expiresAt: string;
}

interface Payload {
  t: string;
  h: string;
  s: string;
  e: string;
  x: string;
}

const mac = (secret: string, body: string) => createHmac('sha256', secret).update(`${DOMAIN}.${body}`).digest('base64url');

export function signSlot(secret: string, claim: SlotClaim): string {
  const body = Buffer.from(
    JSON.stringify({ t: claim.tenantId, h: claim.handoffId, s: claim.startsAt, e: claim.endsAt, x: claim.expiresAt } satisfies Payload),
  ).toString('base64url');
  return `slot_${body}.${mac(secret, body)}`;
}

type SlotRefusal = 'slot_invalid' | 'slot_foreign' | 'slot_expired';
export type SlotCheck = { ok: true; slot: SlotClaim } | { ok: false; reason: SlotRefusal };

/** Check a slot id for this tenant and handoff at `at`. */
export function verifySlot(secret: string, slotId: string, expect: { tenantId: string; handoffId: string }, at: Date): SlotCheck {
  const m = /^slot_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(slotId);
  if (!m) return { ok: false, reason: 'slot_invalid' };
  const expected = Buffer.from(mac(secret, m[1]!));
  const actual = Buffer.from(m[2]!);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return { ok: false, reason: 'slot_invalid' };
  let p: Payload;
  try {
    p = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as Payload;
  } catch {
    return { ok: false, reason: 'slot_invalid' };
  }
  if (typeof p.t !== 'string' || typeof p.h !== 'string' || typeof p.s !== 'string' || typeof p.e !== 'string' || typeof p.x !== 'string')
    return { ok: false, reason: 'slot_invalid' };
  if (p.t !== expect.tenantId || p.h !== expect.handoffId) return { ok: false, reason: 'slot_foreign' };
  if (!(Date.parse(p.x) > at.getTime())) return { ok: false, reason: 'slot_expired' };
  return { ok: true, slot: { tenantId: p.t, handoffId: p.h, startsAt: p.s, endsAt: p.e, expiresAt: p.x } };
}

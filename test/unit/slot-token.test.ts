import { describe, expect, it } from 'vitest';
import { SLOT_TTL_MS, signSlot, verifySlot } from '../../shared/calendar/slot-token.js';
import { encodeCursor } from '../../shared/pagination/cursor.js';

const secret = 'k'.repeat(40);
const at = new Date('2026-06-01T12:00:00Z');
const claim = {
  tenantId: 'ten_A',
  handoffId: 'hof_1',
  startsAt: '2026-06-02T13:00:00.000Z',
  endsAt: '2026-06-02T13:30:00.000Z',
  expiresAt: new Date(at.getTime() + SLOT_TTL_MS).toISOString(),
};
const who = { tenantId: 'ten_A', handoffId: 'hof_1' };

describe('handoff slot ids', () => {
  it('round-trips for its own tenant and handoff until it expires', () => {
    const id = signSlot(secret, claim);
    expect(verifySlot(secret, id, who, at)).toEqual({ ok: true, slot: claim });
    expect(verifySlot(secret, id, who, new Date(at.getTime() + SLOT_TTL_MS - 1)).ok).toBe(true);
    expect(verifySlot(secret, id, who, new Date(at.getTime() + SLOT_TTL_MS))).toEqual({ ok: false, reason: 'slot_expired' });
  });

  it('is refused for another handoff or another tenant', () => {
    const id = signSlot(secret, claim);
    expect(verifySlot(secret, id, { ...who, handoffId: 'hof_2' }, at)).toEqual({ ok: false, reason: 'slot_foreign' });
    expect(verifySlot(secret, id, { ...who, tenantId: 'ten_B' }, at)).toEqual({ ok: false, reason: 'slot_foreign' });
  });

  it('refuses any tampering: a re-encoded body, a changed mac, another secret, a cursor, garbage', () => {
    const id = signSlot(secret, claim);
    const [body, mac] = id.slice(5).split('.');
    const moved = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), s: '2026-06-02T14:00:00.000Z' })).toString(
      'base64url',
    );
    expect(verifySlot(secret, `slot_${moved}.${mac}`, who, at)).toEqual({ ok: false, reason: 'slot_invalid' });
    const flipped = mac!.slice(0, -1) + (mac!.endsWith('A') ? 'B' : 'A');
    expect(verifySlot(secret, `slot_${body}.${flipped}`, who, at)).toEqual({ ok: false, reason: 'slot_invalid' });
    expect(verifySlot('z'.repeat(40), id, who, at)).toEqual({ ok: false, reason: 'slot_invalid' });
    expect(verifySlot(secret, `slot_${encodeCursor(secret, 'ten_A', 's', { pk: 'x' })}`, who, at)).toEqual({ ok: false, reason: 'slot_invalid' });
    for (const junk of ['', 'slot_', 'slot_a.b.c', '../etc', id + 'x']) expect(verifySlot(secret, junk, who, at).ok).toBe(false);
  });
});

/** Request bodies shared by the agent, profile and rep e2e suites. */
import { createHash } from 'node:crypto';
import { createRepAction } from '../../shared/admin/bootstrap.js';

export const profileBody = (over: Record<string, unknown> = {}) => ({
  name: 'Outbound sales (US)',
  call_purpose: 'marketing',
  subject: 'product_offers',
  seller_name: 'Acme Solar LLC',
  calling_window: { start: '09:00', end: '20:00' },
  ...over,
});

export const locs = (body: { detail: { loc: (string | number)[]; type: string }[] }) => body.detail.map((d) => `${d.loc.join('.')}:${d.type}`).sort();

let seq = 0;
/** A rep made the way the operator CLI makes one; returns its id and the (secret) number. */
export async function newRep(tenantId: string, opts: { name?: string; disabled?: boolean; number?: string | null } = {}) {
  const number = opts.number === undefined ? `+1415777${String(1000 + (++seq % 9000)).slice(-4)}` : opts.number;
  const { rep_id } = await createRepAction({ tenantId, name: opts.name ?? `Rep ${seq}`, transferNumber: number, disabled: opts.disabled ?? false });
  return { id: rep_id, number };
}

/**
 * A content hash recomputed the way a client would, independently of the server's
 * module: SHA-256 of compact JSON with keys sorted at every level.
 */
const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
        )
      : v;
export const clientHash = (v: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(sorted(v)))
    .digest('hex');

/** An agent version's content_hash as a client recomputes it: its definition without the agent's bookkeeping, and its frozen compliance profile. */
export const versionHash = (v: { definition: Record<string, unknown>; compliance_profile: unknown }) => {
  const { status: _s, latest_version: _l, latest_version_id: _i, created_at: _c, updated_at: _u, ...definition } = v.definition;
  return clientHash({ definition, compliance_profile: v.compliance_profile });
};

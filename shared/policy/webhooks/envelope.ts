/**
 * The body a tenant's endpoint receives, as a pure module.
 *
 * Exactly five keys — id, type, created_at, api_version, data — so nothing internal (the
 * tenant id above all) can leak through an event record that grows new fields. The body is
 * canonical JSON (compact, keys sorted at every level): the bytes that are signed are the
 * bytes that are sent, and the same event always serialises the same way on every retry.
 */
import { canonicalJson } from '../../canonical-json.js';

export const WEBHOOK_API_VERSION = '0.1.0';

export interface WebhookEnvelope {
  id: string;
  type: string;
  created_at: string;
  api_version: string;
  data: Record<string, unknown>;
}

export function envelopeOf(event: { id: string; type: string; created_at: string; data: Record<string, unknown> }): WebhookEnvelope {
  return { id: event.id, type: event.type, created_at: event.created_at, api_version: WEBHOOK_API_VERSION, data: event.data };
}

export function envelopeBody(envelope: WebhookEnvelope): string {
  return canonicalJson(envelope);
}

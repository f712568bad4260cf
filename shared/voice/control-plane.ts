/**
 * The ControlPlane (shared/voice/ports.ts) for one call, as both runtime hosts use it:
 *   - loadCall reads the brief straight from the stores (the hosts run beside the table);
 *   - postEvents and checkCalendar go through the control plane's own runtime routes with
 *     the call's Stream token, so the runtime reports exactly what any other runtime could,
 *     through the route's validation and its one transaction.
 * Global fetch pools keep-alive connections per origin, so one call's batches reuse a socket.
 */
import { pinnedVersion } from '../calls/pinned-versions.js';
import { retrievePassages } from '../knowledge/pack-index.js';
import { getCall } from '../repositories/calls.js';
import { getRep } from '../repositories/reps.js';
import { MAX_EVENTS_PER_REQUEST } from '../schemas/runtime-events.js';
import type { VerifiedStreamClaims } from '../telephony/call-tokens.js';
import { publicBaseUrl, sandboxApiBaseUrl, twilioApiBaseUrl } from '../telephony/endpoints.js';
import { platformRegistry } from './llm/registry.js';
import { type CallBrief, type CallQuestion, type ControlPlane, ControlPlaneError, type RuntimeEventInput } from './ports.js';

export interface ControlPlaneOptions {
  /** The call's Stream token: the bearer credential of the runtime routes. */
  token: string;
  /** Default: PUBLIC_BASE_URL. */
  baseUrl?: string;
  /** The call reported on, when the host knows it without loadCall (a stateless invocation). */
  callId?: string;
  fetch?: typeof fetch;
  /** Attempts per request, the first included. Default 5. */
  attempts?: number;
  /** Backoff before retry n is a random share of min(maxDelayMs, baseDelayMs · 2ⁿ⁻¹) (full jitter). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const DEFAULTS = { attempts: 5, baseDelayMs: 100, maxDelayMs: 2_000 };

/** Full jitter: spreads the retries of many calls hitting one blip. Pure given `random`. */
export const backoffMs = (retry: number, base: number, max: number, random: () => number): number =>
  Math.floor(random() * Math.min(max, base * 2 ** (retry - 1)));

/** Network errors, 5xx and 429 are worth another try with the same ids; any other 4xx is an answer. */
const transient = (status: number) => status >= 500 || status === 429;

export function createControlPlane(opts: ControlPlaneOptions): ControlPlane {
  const doFetch = opts.fetch ?? fetch;
  const attempts = Math.max(1, opts.attempts ?? DEFAULTS.attempts);
  const base = opts.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const max = opts.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = opts.random ?? Math.random;
  let callId = opts.callId;

  const url = (path: string) => {
    if (!callId) throw new ControlPlaneError('loadCall must succeed before the call is reported on', 0, 'call_not_loaded');
    return `${(opts.baseUrl ?? publicBaseUrl()).replace(/\/+$/, '')}/runtime/v1/calls/${encodeURIComponent(callId)}${path}`;
  };

  async function post(path: string, body: unknown): Promise<unknown> {
    const target = url(path);
    let last: ControlPlaneError | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep(backoffMs(attempt - 1, base, max, random));
      let res: Response;
      try {
        res = await doFetch(target, {
          method: 'POST',
          headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      } catch (err) {
        last = new ControlPlaneError(`network error: ${(err as Error)?.message ?? err}`, 0, 'network_error');
        continue;
      }
      const text = await res.text();
      if (res.ok) return text ? JSON.parse(text) : null;
      const code = errorCode(text);
      last = new ControlPlaneError(`${path || '/'} answered ${res.status}${code ? ` ${code}` : ''}`, res.status, code);
      if (!transient(res.status)) throw last;
    }
    throw last!;
  }

  return {
    async loadCall(claims) {
      const brief = await loadCallBrief(claims);
      if (brief) callId = claims.call_id;
      return brief;
    },
    async postEvents(events: readonly RuntimeEventInput[]) {
      for (let i = 0; i < events.length; i += MAX_EVENTS_PER_REQUEST) {
        await post('/events', { events: events.slice(i, i + MAX_EVENTS_PER_REQUEST) });
      }
    },
    async checkCalendar(query) {
      return (await post('/calendar/availability', query)) as { slots: { starts_at: string; ends_at: string }[] };
    },
  };
}

function errorCode(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A call on the sandbox carrier (a mock account, or a deployment whose carrier base URL is its
 * own sandbox, as under `npm start`) only ever runs sandbox models: nobody real is listening.
 */
const onSandboxCarrier = (call: { provider?: string; telephony?: { mock?: boolean } | null }): boolean =>
  call.provider === 'mock' || call.telephony?.mock === true || twilioApiBaseUrl() === sandboxApiBaseUrl();

/**
 * The call the token names, with its pinned version, template, questions, context and the
 * reps it may transfer to; null when the call is not the token's (another tenant, another
 * version) or anything it pins is gone (a kept version goes only with its tenant, whose call
 * read then finds nothing).
 */
export async function loadCallBrief(claims: VerifiedStreamClaims): Promise<CallBrief | null> {
  const call = await getCall(claims.tenant_id, claims.call_id);
  if (!call || call.tenant_id !== claims.tenant_id) return null;
  // An answering policy's ai step pins its agent version in the policy version the call started
  // on (the call record names no agent): our token, minted from that version, names it.
  const onPolicy = call.direction === 'inbound' && claims.policy_version !== undefined && call.inbound?.policy_version === claims.policy_version;
  const pinned = call.direction === 'inbound' ? call.inbound?.agent_version_id : call.agent_version_id;
  if (!onPolicy && pinned !== claims.agent_version_id) return null;
  const found = await pinnedVersion(claims.tenant_id, claims.agent_version_id);
  if (!found) return null;
  const { version, outcome_type } = found;
  const def = version.definition;
  // The snapshot says who was a transfer target when the version was published; the rep
  // must still be active with a number now. Names and ids only leave this function.
  const reps = await Promise.all(def.direct_reps.filter((r) => r.transfer_enabled).map((r) => getRep(claims.tenant_id, r.rep_id)));
  const transfer_targets = reps.filter((r) => r?.status === 'active' && r.transfer_number).map((r) => ({ rep_id: r!.id, name: r!.name }));
  return {
    claims,
    direction: call.direction,
    use_case: def.use_case,
    outcome_type,
    objectives: version.objectives.map((o) => ({ id: o.id, description: o.description, required: o.required })),
    definition: {
      ...def,
      tools: def.tools,
      llm_route: platformRegistry().effectiveRoute(def.llm_route ?? null, { sandbox: onSandboxCarrier(call) }),
      disclosure_config: def.disclosure_config,
    },
    questions: (call.questions ?? []) as CallQuestion[],
    context: call.context ?? {},
    transfer_targets,
    knowledge_pack: def.knowledge_pack_id && def.knowledge_pack_version ? { id: def.knowledge_pack_id, version: def.knowledge_pack_version } : null,
  };
}

/**
 * Retrieval for a reply, on both hosts: the pinned pack version's passages for the contact's
 * words, read beside the table like the brief (the index is loaded once per process and
 * cached). undefined when the version names no pack.
 */
export const packRetrieval = (brief: CallBrief): ((query: string) => Promise<{ id: string; title: string; text: string }[]>) | undefined => {
  const pack = brief.knowledge_pack;
  return pack ? (query) => retrievePassages(brief.claims.tenant_id, pack, query) : undefined;
};

/**
 * What we answer an inbound call with: TwiML plus the path entries the call record keeps.
 * Pure: every input (the policy version, the reps' numbers, the signing key, the instant,
 * the URLs) is passed in, so the same call always renders the same way.
 *
 *   agent      → <Connect><ConversationRelay> to the voice runtime with a signed token
 *                (tenant, call, agent version, number; policy version when a policy put it
 *                there); shared/telephony/relay-twiml.ts
 *   voicemail  → the greeting, then <Record> (the recording reaches /carrier/twilio/recording)
 *   policy     → the step at a path: menu → <Gather> whose action URL carries the signed
 *                state (policy version, step path, invalid presses); ring_humans → <Dial>
 *                the reps' numbers, its action the same signed state; ai → the relay to
 *                the pinned version; voicemail; hangup; the end of a list → hang up
 *   unavailable → a polite refusal and <Hangup>
 */

import type { PolicyDocument, PolicyStep } from '../policy/answering/model.js';
import type { PolicyPath } from '../policy/answering/step-path.js';
import { encodeStepPath, nextStepPath, resolveStep } from '../policy/answering/step-path.js';
import type { InboundPathEntry } from '../repositories/calls.js';
import { type CallTokenKey, gatherActionUrl } from './call-tokens.js';
import type { RelaySpeechSettings } from './relay-settings.js';
import { type RelayAgent, relayTwiml } from './relay-twiml.js';
import { dial, gather, hangup, record, say, twiml } from './twiml.js';

export interface AnswerContext {
  tenantId: string;
  callId: string;
  numberId: string;
  /** The number called (caller ID when we ring reps). */
  numberE164: string;
  key: CallTokenKey;
  at: Date;
  /** Our public base URL (callback URLs are built from it). */
  baseUrl: string;
  /** The voice runtime's ConversationRelay WebSocket URL. */
  relayUrl: string;
  speech: RelaySpeechSettings;
  /** The pinned versions the answer may hand the call to, by version id (the agent route's, the policy's ai steps'). */
  agents: ReadonlyMap<string, RelayAgent>;
  /** Transfer numbers of the reps the policy may ring (active ones only). */
  repNumbers: ReadonlyMap<string, string>;
  /** How long the Stream token stays valid (the runtime reports events with it for the whole call); default STREAM_TOKEN_TTL_SECONDS. */
  streamTtlSeconds?: number;
}

export interface Answer {
  twiml: string;
  entries: InboundPathEntry[];
}

export const UNAVAILABLE_MESSAGE = "We're sorry, this number cannot take your call right now. Please try again later. Goodbye.";
export const DEFAULT_VOICEMAIL_GREETING = 'Please leave a message after the tone.';
const VOICEMAIL_MAX_SECONDS = 120;
const NOT_AN_OPTION = 'Sorry, that is not an option.';

export const recordingUrl = (ctx: Pick<AnswerContext, 'baseUrl'>) => `${ctx.baseUrl}/carrier/twilio/recording`;
export const policyActionUrl = (ctx: Pick<AnswerContext, 'baseUrl'>) => `${ctx.baseUrl}/carrier/twilio/policy-action`;

export function unavailable(reason: string): Answer {
  return { twiml: twiml(say(UNAVAILABLE_MESSAGE), hangup()), entries: [{ action: 'refused', reason }] };
}

export function relayToAgent(ctx: AnswerContext, agent: { agent_id: string; agent_version_id: string }, policyVersion?: number, stepPath?: string): Answer {
  const version = ctx.agents.get(agent.agent_version_id);
  if (!version) return unavailable('agent_version_missing');
  const claims = {
    tenant_id: ctx.tenantId,
    call_id: ctx.callId,
    agent_version_id: agent.agent_version_id,
    number_id: ctx.numberId,
    ...(policyVersion ? { policy_version: policyVersion } : {}),
  };
  return {
    twiml: relayTwiml({
      claims,
      agent: version,
      key: ctx.key,
      at: ctx.at,
      relayUrl: ctx.relayUrl,
      baseUrl: ctx.baseUrl,
      speech: ctx.speech,
      ...(ctx.streamTtlSeconds ? { ttlSeconds: ctx.streamTtlSeconds } : {}),
    }),
    entries: [{ action: 'ai', agent_id: agent.agent_id, agent_version_id: agent.agent_version_id, ...(stepPath ? { step_path: stepPath } : {}) }],
  };
}

export function voicemail(ctx: AnswerContext, greeting: string | null, stepPath?: string): Answer {
  return {
    twiml: twiml(
      say(greeting ?? DEFAULT_VOICEMAIL_GREETING),
      record({ maxLengthSeconds: VOICEMAIL_MAX_SECONDS, action: recordingUrl(ctx), playBeep: true }),
      hangup(),
    ),
    entries: [{ action: 'voicemail', ...(stepPath ? { step_path: stepPath } : {}) }],
  };
}

/** Render the step at `path` of policy version `version` (`null` path: the list ran out). */
export function runStep(
  ctx: AnswerContext,
  policy: PolicyDocument<PolicyStep>,
  version: number,
  path: PolicyPath | null,
  opts: { invalidAttempts?: number; notAnOption?: boolean } = {},
): Answer {
  const step = path ? resolveStep(policy, path) : undefined;
  if (!path || !step) return { twiml: twiml(hangup()), entries: [{ action: 'end' }] };
  const stepPath = encodeStepPath(path);
  const state = (invalid: number) =>
    gatherActionUrl(
      policyActionUrl(ctx),
      ctx.key,
      { tenant_id: ctx.tenantId, call_id: ctx.callId, number_id: ctx.numberId, policy_version: version, step_path: stepPath, invalid_attempts: invalid },
      ctx.at,
    );
  switch (step.type) {
    case 'menu': {
      const prompt = opts.notAnOption ? [say(NOT_AN_OPTION), say(step.prompt)] : [say(step.prompt)];
      return {
        twiml: twiml(gather({ action: state(opts.invalidAttempts ?? 0), timeoutSeconds: step.timeout_seconds, prompt })),
        entries: [{ action: 'menu', step_path: stepPath }],
      };
    }
    case 'ring_humans': {
      const numbers = step.rep_ids.map((id) => ctx.repNumbers.get(id)).filter((n): n is string => Boolean(n));
      // Reps disabled since the policy was written are skipped; with none left, the no-answer path runs at once.
      if (numbers.length === 0) {
        const next = runStep(ctx, policy, version, nextStepPath(policy, path));
        return { twiml: next.twiml, entries: [{ action: 'ring_humans', step_path: stepPath, rep_ids: step.rep_ids, reachable: 0 }, ...next.entries] };
      }
      return {
        twiml: twiml(dial({ numbers, timeoutSeconds: step.timeout_seconds, action: state(0), callerId: ctx.numberE164 })),
        entries: [{ action: 'ring_humans', step_path: stepPath, rep_ids: step.rep_ids, reachable: numbers.length }],
      };
    }
    case 'ai':
      return relayToAgent(ctx, step, version, stepPath);
    case 'voicemail':
      return voicemail(ctx, step.greeting, stepPath);
    case 'hangup':
      return { twiml: twiml(hangup()), entries: [{ action: 'hangup', step_path: stepPath }] };
  }
}

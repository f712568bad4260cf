/**
 * Hands a sandbox call to the relay contact (shared/sandbox/relay-caller.ts), for the outbound
 * call player and the inbound call alike: who the contact is (the test number's script and the
 * items the agent will ask, read as the runtime reads them: the pinned version the call token
 * names, the call's questions) and the carrier requests its `<Connect action>` posts go through
 * (signed by the caller's account, followed by the verb runner).
 */
import { type CallerSource, callerItems } from './caller-scripts.js';
import { type OnLine, playRelayCall, type RelayCallResult, type RelayLeg, type RelayTarget, relayTargetOf } from './relay-caller.js';
import { callQuestions, peekStreamClaims, pinnedView } from './runtime.js';
import type { Scenario } from './scenarios.js';
import { type CarrierRequest, type CarrierResponse, followTwiml } from './verb-runner.js';

/** The outbound contact of a test number: its script, and the items the call's agent will ask (none when the token names no call). */
export async function outboundCallerSource(scenario: Scenario, parameters: Record<string, string>): Promise<CallerSource | null> {
  if (!scenario.script) return null;
  const claims = peekStreamClaims(parameters.token);
  if (!claims) return { kind: 'outbound', script: scenario.script, items: [] };
  const [{ view }, questions] = await Promise.all([pinnedView(claims.tenant_id, claims.agent_version_id), callQuestions(claims.tenant_id, claims.call_id)]);
  return { kind: 'outbound', script: scenario.script, items: callerItems(view, questions) };
}

export interface RelayLegInput {
  target: RelayTarget;
  authToken: string;
  leg: RelayLeg;
  source: CallerSource;
  /** Sends one carrier request, signed (the verb runner's `request`). */
  request: (req: CarrierRequest) => Promise<CarrierResponse>;
  /** Parameters every request about the call carries (AccountSid, CallSid, From, To, …). */
  callParams: Record<string, string>;
  repsAnswer?: boolean;
  onLine?: OnLine;
  pauseMs?: number;
}

/** The conversation, then the action's TwiML followed (a Dial, a Say, a Hangup, a reconnect). */
export function playRelayLeg(input: RelayLegInput): Promise<RelayCallResult> {
  return playRelayCall({
    target: input.target,
    authToken: input.authToken,
    leg: input.leg,
    source: input.source,
    ...(input.onLine ? { onLine: input.onLine } : {}),
    ...(input.pauseMs !== undefined ? { pauseMs: input.pauseMs } : {}),
    followAction: async (url, params) => {
      const followed = await followTwiml({
        first: { url, params: { ...input.callParams, CallStatus: 'in-progress', ...params } },
        request: input.request,
        callSid: input.leg.callSid,
        ...(input.repsAnswer !== undefined ? { repsAnswer: input.repsAnswer } : {}),
      });
      return { path: followed.path, relay: relayTargetOf(followed) };
    },
  });
}

/**
 * How long, and for how much, the voice runtime may report on a call — pure (the instant is
 * an argument). A runtime flushes after the hang-up, so an ended call takes events for
 * LATE_EVENT_WINDOW_SECONDS after its end and then none (its Stream token is spent with it);
 * and what it meters is bounded by how long the call lasted, so a token cannot bill a
 * tenant for more audio, speech or model work than the call could have used.
 */
import { type CallState, isTerminal } from './machine.js';

/** A runtime's flush after the hang-up lands within this many seconds of the call's end. */
export const LATE_EVENT_WINDOW_SECONDS = 120;
/** Audio (and GPU) seconds may exceed the call's duration by this much: the runtime's and the carrier's clocks disagree a little. */
export const USAGE_SLACK_SECONDS = 30;
/** GPU seconds per second of call: speech models run on both sides of the line and may lag. */
export const GPU_SECONDS_PER_CALL_SECOND = 2;
/**
 * Per started minute of call, at most this much may be metered. Speech is ~900 characters a
 * minute; a reply re-sends the prompt (a few thousand tokens) several times a minute. The
 * ceilings are well above a real conversation and far below what a forged report could claim.
 */
export const USAGE_PER_MINUTE = { characters_spoken: 3000, llm_input_tokens: 200_000, llm_output_tokens: 20_000 } as const;

export type CallTiming = {
  state: CallState;
  answered_at: string | null;
  ended_at: string | null;
  duration_seconds: number | null;
  created_at: string;
  updated_at: string;
};

/** When the call ended: its ended_at, or (a terminal call that never stored one) its last update. */
function callEndedAt(call: CallTiming): Date | null {
  if (call.ended_at) return new Date(call.ended_at);
  return isTerminal(call.state) ? new Date(call.updated_at) : null;
}

/** The instant after which the runtime may no longer report on the call (null while it lasts). */
export function runtimeWindowClosesAt(call: CallTiming): Date | null {
  const end = callEndedAt(call);
  return end && new Date(end.getTime() + LATE_EVENT_WINDOW_SECONDS * 1000);
}

export const runtimeWindowOpen = (call: CallTiming, at: Date): boolean => {
  const closes = runtimeWindowClosesAt(call);
  return closes === null || at.getTime() <= closes.getTime();
};

/**
 * While a call lasts its length is not known yet (and a runtime may report audio ahead of our
 * clock: the sandbox plays conversations faster than real time), so its usage is bounded by
 * the longest a call can last: the Stream token's default lifetime. The carrier's duration
 * takes over once it reports the end.
 */
export const MAX_CALL_SECONDS = 4 * 60 * 60;

/** How long the call lasted, in seconds: the carrier's duration once it ended (else end − answer); MAX_CALL_SECONDS while it lasts. */
export function callSeconds(call: CallTiming): number {
  const end = callEndedAt(call);
  if (!end) return MAX_CALL_SECONDS;
  const start = new Date(call.answered_at ?? call.created_at).getTime();
  return Math.max(0, call.duration_seconds ?? (end.getTime() - start) / 1000);
}

export interface UsageBounds {
  audio_seconds: number;
  gpu_seconds: number;
  characters_spoken: number;
  llm_input_tokens: number;
  llm_output_tokens: number;
}

/** The most the call's usage may add up to (running totals). */
export function usageBounds(call: CallTiming): UsageBounds {
  const seconds = callSeconds(call) + USAGE_SLACK_SECONDS;
  const minutes = Math.ceil(seconds / 60);
  return {
    audio_seconds: seconds,
    gpu_seconds: seconds * GPU_SECONDS_PER_CALL_SECOND,
    characters_spoken: minutes * USAGE_PER_MINUTE.characters_spoken,
    llm_input_tokens: minutes * USAGE_PER_MINUTE.llm_input_tokens,
    llm_output_tokens: minutes * USAGE_PER_MINUTE.llm_output_tokens,
  };
}

/** The 409's code and words once the window has passed (the call's Stream token is spent with it). */
export const CALL_ENDED = 'call_ended';
export function callEndedDetail(call: CallTiming): string {
  const closed = runtimeWindowClosesAt(call)?.toISOString() ?? null;
  return `The call ended; its runtime could report on it until ${closed}, ${LATE_EVENT_WINDOW_SECONDS} s after the end, and no longer can`;
}

/**
 * The answering policy's vocabulary (the contract "Answering policy", Part 8 Limits), shared
 * by the request schema and the pure evaluator so the two cannot disagree on a limit.
 */
import { HHMM, minutesOf } from '../calling-window.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A menu branch is one key press: the twelve keys of a telephone keypad. */
export const DTMF_KEYS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '#'] as const;
export type DtmfKey = (typeof DTMF_KEYS)[number];
export const isDtmfKey = (v: string): v is DtmfKey => (DTMF_KEYS as readonly string[]).includes(v);

export const LIMITS = {
  timezoneChars: 64,
  windowsPerDay: 6,
  holidayDates: 60,
  openSteps: 60,
  closedSteps: 60,
  promptChars: 1000,
  branches: 12,
  branchSteps: 12,
  timeoutBranchSteps: 12,
  menuTimeoutSeconds: { min: 1, max: 30, default: 5 },
  maxInvalidAttempts: { min: 1, max: 5, default: 2 },
  /** The top-level menu is level 1. */
  menuDepth: 5,
  /** Twilio's <Dial timeout> accepts 5–600 s; two minutes of ringing is already long for a caller. */
  ringTimeoutSeconds: { min: 5, max: 120, default: 20 },
  /** A <Dial> to more than ten numbers at once is a broadcast, not a transfer. */
  ringReps: 10,
  greetingChars: 1000,
  /** One stored policy version is one DynamoDB item (400 KB), with room for its keys and metadata. */
  documentBytes: 256 * 1024,
} as const;

export interface Window {
  start: string;
  end: string;
}

/** Window starts are HH:MM; an end may also be 24:00 so a window can reach midnight (end excluded). */
export const WINDOW_END = /^(?:(?:[01]\d|2[0-3]):[0-5]\d|24:00)$/;
export const isWindowStart = (v: string) => HHMM.test(v);
export const isWindowEnd = (v: string) => WINDOW_END.test(v);
export const windowMinutes = (w: Window) => ({ start: minutesOf(w.start), end: minutesOf(w.end) });

export type BusinessHours = Partial<Record<Weekday, Window[]>>;

export interface MenuStepOf<S> {
  type: 'menu';
  prompt: string;
  branches: Partial<Record<DtmfKey, S[]>>;
  timeout_seconds: number;
  max_invalid_attempts: number;
  timeout_branch: S[];
}
interface RingHumansStep {
  type: 'ring_humans';
  rep_ids: string[];
  timeout_seconds: number;
}
/** As written: the agent only. */
export interface AiStepRequest {
  type: 'ai';
  agent_id: string;
}
/** As stored and rendered: the agent's version pinned when the policy was written (PUT rule 3). */
export interface PinnedAiStep {
  type: 'ai';
  agent_id: string;
  agent_version_id: string;
  agent_version: number;
}
interface VoicemailStep {
  type: 'voicemail';
  greeting: string;
}
interface HangupStep {
  type: 'hangup';
}

/** A step whose ai steps take the shape `A` (as written, or pinned). */
export type StepOf<A> = MenuStepOf<StepOf<A>> | RingHumansStep | A | VoicemailStep | HangupStep;
export type RequestStep = StepOf<AiStepRequest>;
export type PolicyStep = StepOf<PinnedAiStep>;
export type AnyStep = StepOf<AiStepRequest | PinnedAiStep>;

/** The parts of a policy document the evaluator reads. */
export interface PolicyDocument<S = AnyStep> {
  timezone: string;
  business_hours?: BusinessHours;
  holiday_dates?: string[];
  open_steps: S[];
  closed_steps?: S[];
}

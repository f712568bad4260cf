/**
 * Campaign rules (pure): what an attempt's end means for its contact and the campaign's
 * counters, when a retry may start, how many attempts a tick may launch, and the campaign
 * status moves. Unit-tested in test/unit/campaign-rules.test.ts.
 */

/** States whose attempt was not answered by a person: another attempt may follow. */
const RETRYABLE_STATES = ['no_answer', 'busy', 'machine'] as const;
/** Dispositions that end a contact for good, whatever attempts remain. */
const FINAL_DISPOSITIONS = ['opt_out', 'wrong_person_opt_out', 'dnc_hit', 'scrub_blocked', 'blocked_by_policy'] as const;

export interface AttemptEnd {
  state: string;
  disposition: string | null;
}

export interface CampaignAttemptInfo {
  /** 1-based number of this attempt for its contact. */
  number: number;
  max_attempts: number;
  retry_after_minutes: number;
}

export interface AttemptVerdict {
  /** The contact gets another attempt (queued at `retry_at`). */
  retry: boolean;
  retry_at: string | null;
  /** Counter increments for the campaign. */
  connected: 0 | 1;
  completed_goal: 0 | 1;
  /** The contact reached its terminal outcome. */
  done: 0 | 1;
}

/** Answered by a person: the carrier answered and it was not a machine. */
const isConnected = (end: AttemptEnd): boolean => end.state === 'completed' && end.disposition !== 'voicemail_machine';

export function judgeAttemptEnd(end: AttemptEnd, info: CampaignAttemptInfo, endedAt: Date, campaignCancelled = false): AttemptVerdict {
  const retryable = (RETRYABLE_STATES as readonly string[]).includes(end.state) && !(FINAL_DISPOSITIONS as readonly string[]).includes(end.disposition ?? '');
  const retry = retryable && !campaignCancelled && info.number < info.max_attempts;
  return {
    retry,
    retry_at: retry ? new Date(endedAt.getTime() + info.retry_after_minutes * 60_000).toISOString() : null,
    connected: isConnected(end) ? 1 : 0,
    completed_goal: end.disposition === 'completed_goal' ? 1 : 0,
    done: retry ? 0 : 1,
  };
}

/** How many new attempts may start now: the free concurrency slots (null cap: `batch`), never negative. */
export function launchable(cap: number | null, inFlight: number, batch: number): number {
  const free = cap === null ? batch : Math.min(batch, cap - inFlight);
  return Math.max(0, free);
}

/**
 * The campaign's counter shards (docs/capacity.md): one per SLOTS_PER_COUNTER_SHARD slots of its
 * cap, at most MAX_COUNTER_SHARDS; an uncapped campaign takes the most. The attempts' rate, which
 * heats a counter, is the cap over the call's length, so the cap is what the counters' heat follows.
 */
export const MAX_COUNTER_SHARDS = 8;
const SLOTS_PER_COUNTER_SHARD = 25;
export const counterShardsFor = (cap: number | null): number =>
  cap === null ? MAX_COUNTER_SHARDS : Math.max(1, Math.min(MAX_COUNTER_SHARDS, Math.floor(cap / SLOTS_PER_COUNTER_SHARD)));

/** Shard i's share of the cap: ⌊cap / S⌋, the remainder on the first ones, so the shares sum to the cap exactly (null: no cap). */
export const shardCap = (cap: number | null, shards: number, i: number): number | null =>
  cap === null ? null : Math.floor(cap / shards) + (i < cap % shards ? 1 : 0);

/**
 * The shards `n` launches go to, read at once: each to the shard with the most room left
 * (ties: the lower index), so the launches spread and none is sent to a full shard.
 */
export function launchShards(shards: readonly { in_flight: number; cap: number | null }[], n: number): number[] {
  const room = shards.map((s) => (s.cap === null ? Number.POSITIVE_INFINITY : s.cap - s.in_flight));
  const taken = shards.map(() => 0);
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    let best = -1;
    for (let i = 0; i < shards.length; i++) {
      const left = room[i]! - taken[i]!;
      if (left > 0 && (best < 0 || left > room[best]! - taken[best]! || (left === room[best]! - taken[best]! && taken[i]! < taken[best]!))) best = i;
    }
    if (best < 0) break;
    taken[best]!++;
    out.push(best);
  }
  return out;
}

export const CAMPAIGN_STATUSES = ['draft', 'scrubbing', 'ready', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** Where each action may start from. */
export const CAMPAIGN_MOVES = {
  start: ['draft'],
  pause: ['running'],
  resume: ['paused'],
  cancel: ['draft', 'scrubbing', 'ready', 'running', 'paused'],
  // The driver's own moves (shared/campaigns/driver.ts).
  ready: ['scrubbing'],
  run: ['ready'],
  complete: ['running'],
} as const satisfies Record<string, readonly CampaignStatus[]>;
export type CampaignAction = keyof typeof CAMPAIGN_MOVES;

/**
 * Where the scrub may still write: it opens at start and runs on past the move to running (the
 * first judged page already dials) until the list is exhausted; a pause does not stop it, a
 * cancel or completion does.
 */
export const SCRUB_OPEN_STATUSES = ['scrubbing', 'ready', 'running', 'paused'] as const satisfies readonly CampaignStatus[];

/** The scrub still has pages to judge: its status allows it and the list is not exhausted. */
export const scrubOpen = (c: { status: string; scrub_complete: boolean }): boolean =>
  !c.scrub_complete && (SCRUB_OPEN_STATUSES as readonly string[]).includes(c.status);

/** The campaign is finished when every targeted contact has its terminal outcome. */
export const isFinished = (c: { contacts_total: number; done: number; scrub_complete: boolean }): boolean => c.scrub_complete && c.done >= c.contacts_total;

/** The row's sub_code for a compliance block: the first blocking reason's code. */
export const blockSubCode = (reasons: readonly { code: string }[], blockCodes: readonly string[]): string | null =>
  (reasons.find((r) => blockCodes.includes(r.code)) ?? reasons[0])?.code ?? null;

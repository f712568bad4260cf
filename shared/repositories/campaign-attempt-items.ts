/**
 * The campaign's share of an attempt's transactions (see docs/decisions/campaigns.md): what the dial and the end of
 * a campaign call write to the contact's row and the campaign's counters. They join the
 * call's own conditional transition (dispatch's scheduled → dialing; every terminal
 * transition through `completedEvent` or `applyCallTransition`), so each attempt is counted
 * exactly once however many callbacks arrive: a terminal state never changes, so the
 * transition — and these items with it — commits once.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../db/client.js';
import { campaignKeys } from '../db/keys.js';
import { blockSubCode, type CampaignAttemptInfo, judgeAttemptEnd } from '../policy/campaigns/rules.js';
import { BLOCK_CODES } from '../policy/compliance/types.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const CAMPAIGN_CANCELLED = 'campaign_cancelled';

/** What the attempt items need of a call. */
export interface CampaignCallFacts {
  tenant_id: string;
  id: string;
  contact_id?: string | null;
  campaign_id?: string | null;
  campaign_attempt?: CampaignAttemptInfo | null;
  /** The counter shard its launch took (absent: the campaign item's own counters). */
  campaign_shard?: number | null;
  compliance?: { reasons: readonly { code: string }[] } | null;
  outcome?: unknown;
}

/**
 * The structured outcome a row shows, from the call's outcome aggregate: every kind the call
 * can record (shift_confirmation, appointment, survey_response); `none` and no outcome are null.
 */
export function rowOutcome(outcome: unknown): Record<string, unknown> | null {
  const o = outcome as
    | {
        outcome_type?: string;
        event_id?: string;
        response?: string;
        shift_id?: string;
        site?: string;
        shift_starts_at?: string;
        status?: string;
        starts_at?: string;
        duration_minutes?: number;
        complete?: boolean;
        answers?: Record<string, string>;
      }
    | null
    | undefined;
  if (!o) return null;
  const id = o.event_id ?? '';
  switch (o.outcome_type) {
    case 'shift_confirmation':
      return o.response
        ? {
            kind: 'shift_confirmation',
            id,
            response: o.response,
            shift_ref: o.shift_id ?? null,
            site: o.site ?? null,
            shift_starts_at: o.shift_starts_at ?? null,
          }
        : null;
    case 'appointment':
      return o.status ? { kind: 'appointment', id, status: o.status, starts_at: o.starts_at ?? null, duration_minutes: o.duration_minutes ?? null } : null;
    case 'survey_response':
      return typeof o.complete === 'boolean' ? { kind: 'survey_response', id, complete: o.complete, answers: o.answers ?? {} } : null;
    default:
      return null;
  }
}

/** The row's sub_code for an attempt's end. */
export function endSubCode(call: CampaignCallFacts, end: { state: string; end_reason: string | null }): string | null {
  if (end.end_reason === CAMPAIGN_CANCELLED) return CAMPAIGN_CANCELLED;
  if (end.state === 'disposed') return blockSubCode(call.compliance?.reasons ?? [], BLOCK_CODES) ?? end.end_reason;
  if (end.state === 'failed') return end.end_reason;
  return null;
}

/** An attempt's end: the row's final or retry state, the counters, and (retry) the contact back in the queue. */
export function campaignEndItems(
  call: CampaignCallFacts,
  end: { state: string; disposition: string | null; end_reason: string | null },
  at: Date,
  opts: { releaseSlot?: boolean } = {},
): TransactItem[] {
  if (!call.campaign_id || !call.contact_id || !call.campaign_attempt) return [];
  const verdict = judgeAttemptEnd(end, call.campaign_attempt, at, end.end_reason === CAMPAIGN_CANCELLED);
  const iso = at.toISOString();
  const outcome = rowOutcome(call.outcome);
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.row(call.tenant_id, call.campaign_id, call.contact_id),
        UpdateExpression:
          'SET latest_attempt_state = :state, disposition = :disposition, sub_code = :sub, outcome = :outcome, has_outcome = :has, last_activity_at = :at, row_status = :rs, next_attempt_at = :next',
        ExpressionAttributeValues: {
          ':state': end.state,
          ':disposition': end.disposition,
          ':sub': endSubCode(call, end),
          ':outcome': outcome,
          ':has': outcome !== null,
          ':at': iso,
          ':rs': verdict.retry ? 'pending' : 'done',
          ':next': verdict.retry_at,
        },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.counterOf(call.tenant_id, call.campaign_id, call.campaign_shard),
        // The slot stays held while the carrier leg still plays (a voicemail drop after `machine`): campaignSlotReleaseItem frees it at the final callback.
        UpdateExpression: `ADD ${opts.releaseSlot === false ? '' : 'in_flight :minus, '}connected :c, completed_goal :g, done :d SET updated_at = :at`,
        ExpressionAttributeValues: {
          ...(opts.releaseSlot === false ? {} : { ':minus': -1 }),
          ':c': verdict.connected,
          ':g': verdict.completed_goal,
          ':d': verdict.done,
          ':at': iso,
        },
      },
    },
  ];
  if (verdict.retry)
    items.push({
      Put: {
        TableName: tableName(),
        Item: {
          ...campaignKeys.queue(call.tenant_id, call.campaign_id, verdict.retry_at!, call.contact_id),
          type: 'campaign_queue',
          contact_id: call.contact_id,
        },
      },
    });
  return items;
}

/**
 * The analysis settled a completed call's disposition after its terminal transition (the
 * runtime reported after the carrier's final callback): the row shows the settled one and
 * `completed_goal` follows it — once, with the analysis's own conditional write.
 */
export function campaignSettleItems(call: CampaignCallFacts & { disposition?: string | null }, settled: string, at: Date): TransactItem[] {
  if (!call.campaign_id || !call.contact_id || !call.campaign_attempt) return [];
  const delta = (settled === 'completed_goal' ? 1 : 0) - (call.disposition === 'completed_goal' ? 1 : 0);
  const outcome = rowOutcome(call.outcome);
  return [
    {
      Update: {
        TableName: tableName(),
        Key: campaignKeys.row(call.tenant_id, call.campaign_id, call.contact_id),
        UpdateExpression: 'SET disposition = :d, outcome = :o, has_outcome = :h, last_activity_at = :at',
        ExpressionAttributeValues: { ':d': settled, ':o': outcome, ':h': outcome !== null, ':at': at.toISOString() },
      },
    },
    ...(delta === 0
      ? []
      : [
          {
            Update: {
              TableName: tableName(),
              Key: campaignKeys.counterOf(call.tenant_id, call.campaign_id, call.campaign_shard),
              UpdateExpression: 'ADD completed_goal :g',
              ExpressionAttributeValues: { ':g': delta },
            },
          },
        ]),
  ];
}

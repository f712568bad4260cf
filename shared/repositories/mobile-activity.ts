/**
 * The mobile receptionist activity timeline (the contract MobileReceptionistActivity): a merged,
 * newest-first list of live_call, voicemail, handoff and message activity, privacy-minimized
 * — id, kind, resource_id, occurred_at and a short label; never a transcript, recording,
 * media URL or phone number.
 *
 * Each activity is an item in the tenant's activity partition keyed `<occurred_at>#<id>`,
 * put in the same transaction that creates its resource (`activityItem`). occurred_at is the
 * commit instant, so new activity always sorts at the head; the page cursor is that key, so
 * items inserted while a client pages never shift, duplicate or skip older ones (keyset, no
 * offsets).
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../db/client.js';
import { activityKeys } from '../db/keys.js';
import { newId } from '../ids.js';
import { queryPage } from '../pagination/page.js';
import type { ActivityKind } from '../schemas/mobile.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

interface Activity {
  id: string;
  kind: ActivityKind;
  resource_id: string;
  occurred_at: string;
  label: string;
}

/** Labels are fixed phrases chosen by kind and state: nothing the caller said or typed, no number. */
export const ACTIVITY_LABELS = {
  live_call: 'Incoming call',
  voicemail: 'New voicemail',
  handoff_booking: 'Caller asked for a booking',
  handoff_callback: 'Caller asked for a callback',
  message: 'New text message',
} as const;

export function activityItem(
  tenantId: string,
  a: { kind: ActivityKind; resource_id: string; label: keyof typeof ACTIVITY_LABELS },
  occurredAt: Date,
): TransactItem {
  const activity: Activity = {
    id: newId('act'),
    kind: a.kind,
    resource_id: a.resource_id,
    occurred_at: occurredAt.toISOString(),
    label: ACTIVITY_LABELS[a.label],
  };
  return {
    Put: {
      TableName: tableName(),
      Item: { ...activityKeys.item(tenantId, activity.occurred_at, activity.id), type: 'activity', ...activity },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

const present = (i: Record<string, unknown>): Activity => ({
  id: i.id as string,
  kind: i.kind as ActivityKind,
  resource_id: i.resource_id as string,
  occurred_at: i.occurred_at as string,
  label: i.label as string,
});

export function activityPage(tenantId: string, opts: { limit: number; cursor?: string }) {
  return queryPage({
    tenantId,
    scope: 'mobile_activity',
    partition: activityKeys.partition(tenantId),
    skPrefix: activityKeys.prefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: present,
  });
}

/**
 * The few fields of a call that say when it ran, read alone (a projection of the call item):
 * the runtime's authentication checks every request against them, and must not pull the
 * whole call store into every route's bundle.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { callKeys } from '../db/keys.js';
import { isId } from '../ids.js';
import type { CallTiming } from '../policy/call-state/runtime-window.js';

export async function getCallTiming(tenantId: string, callId: string): Promise<CallTiming | undefined> {
  if (!isId(callId)) return undefined;
  const out = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: callKeys.call(tenantId, callId),
      ProjectionExpression: '#state, answered_at, ended_at, duration_seconds, created_at, updated_at',
      ExpressionAttributeNames: { '#state': 'state' },
      ConsistentRead: true,
    }),
  );
  if (!out.Item) return undefined;
  const i = out.Item;
  return {
    state: i.state,
    answered_at: i.answered_at ?? null,
    ended_at: i.ended_at ?? null,
    duration_seconds: i.duration_seconds ?? null,
    created_at: i.created_at,
    updated_at: i.updated_at,
  };
}

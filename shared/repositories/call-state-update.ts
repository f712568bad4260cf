/**
 * A state-machine change (shared/policy/call-state) as the SET clauses it makes on a call
 * record: the new state, the outcome fields the change decides, and its timestamp stamped
 * once (`if_not_exists`, so a replay keeps the first instant). Every call transition — the
 * outbound lifecycle, the inbound carrier status, dispatch's moves — writes a change this
 * way. The caller binds `:now` and owns the condition.
 */
import { tableName } from '../db/client.js';
import { callKeys } from '../db/keys.js';
import type { StateChange } from '../policy/call-state/machine.js';

export interface UpdateParts {
  sets: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

const OUTCOME_FIELDS = ['disposition', 'disposition_set_by', 'end_reason'] as const;

/** Appends `change`'s clauses to `parts` (and returns it). */
export function addStateChange(parts: UpdateParts, change: StateChange): UpdateParts {
  parts.names['#state'] = 'state';
  parts.sets.push('#state = :to');
  parts.values[':to'] = change.state;
  for (const field of OUTCOME_FIELDS) {
    if (change[field] === undefined) continue;
    parts.sets.push(`${field} = :${field}`);
    parts.values[`:${field}`] = change[field];
  }
  if (change.stamp) parts.sets.push(`${change.stamp} = if_not_exists(${change.stamp}, :now)`);
  return parts;
}

/** The call item's update from `parts`, conditioned on the call existing in state `:from` (the caller binds it). */
export function callStateUpdate(call: { tenant_id: string; id: string }, parts: UpdateParts) {
  return {
    TableName: tableName(),
    Key: callKeys.call(call.tenant_id, call.id),
    UpdateExpression: `SET ${parts.sets.join(', ')}`,
    ConditionExpression: 'attribute_exists(pk) AND #state = :from',
    ExpressionAttributeNames: parts.names,
    ExpressionAttributeValues: parts.values,
  };
}

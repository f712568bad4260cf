import { DeleteCommand, GetCommand, PutCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction } from '../db/conditional-transaction.js';
import { keys, platformKeys } from '../db/keys.js';
import { queryAll } from '../db/query.js';
import { failedConditionIndex } from '../db/transact-write.js';
import { conflict } from '../errors.js';
import { outboxItems } from '../events/outbox.js';
import { confirmationEffect, DELETION_PROOF_TTL_MS, type DeletionRequestStatus, scheduledFor } from '../policy/accounts/deletion-rules.js';
import { RACE, type RetryPolicy } from '../retry.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface DeletionRequest {
  tenant_id: string;
  status: Exclude<DeletionRequestStatus, 'none'>;
  requested_at: string;
  requested_by_user_id: string;
  confirmed_by: 'password' | 'email';
  last_confirmed_at: string;
  scheduled_for: string;
  cancelled_at: string | null;
  cancelled_by_user_id: string | null;
  started_at: string | null;
  completed_at: string | null;
  /** Bumped on every write: the next write is conditional on it. */
  revision: number;
}

export async function getDeletionRequest(tenantId: string): Promise<DeletionRequest | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.deletionRequest(tenantId), ConsistentRead: true }));
  return out.Item as DeletionRequest | undefined;
}

/**
 * Writers of one request that keep losing to each other (concurrent confirmations and
 * cancellations) re-read after a full-jitter pause, this many times in all, then answer 409
 * `account_deletion_conflict` (never a 500).
 */
const DELETION_WRITES: RetryPolicy = { ...RACE, attempts: 6 };

const contended = (current: DeletionRequest | undefined) =>
  conflict('account_deletion_conflict', 'The account deletion request was changed by another request at the same time; read it and try again', {
    status: current?.status ?? 'none',
  });

const revisionCondition = (current: DeletionRequest | undefined) =>
  current
    ? { ConditionExpression: 'revision = :rev', ExpressionAttributeValues: { ':rev': current.revision } }
    : { ConditionExpression: 'attribute_not_exists(pk)' };

/**
 * The writes that create or reconfirm the request (plus `extra`, e.g. spending a proof), as
 * one transaction. Returns the request as it stands after. A request already running or done
 * is a 409. `extraIndex` failures are reported by `onExtraFailed`.
 */
export async function confirmDeletion(
  input: { tenantId: string; userId: string; by: 'password' | 'email'; at: Date },
  extra: TransactItem[] = [],
  onExtraFailed?: () => Error,
): Promise<DeletionRequest> {
  let current: DeletionRequest | undefined;
  return conditionalTransaction({
    decide: async () => {
      current = await getDeletionRequest(input.tenantId);
      const effect = confirmationEffect(current?.status ?? 'none');
      if (effect === 'refuse')
        throw conflict('account_deletion_in_progress', `The account deletion is already ${current!.status}`, { status: current!.status });
      const at = input.at.toISOString();
      let next: DeletionRequest;
      const items: TransactItem[] = [...extra];
      if (effect === 'reconfirm') {
        next = { ...current!, last_confirmed_at: at, confirmed_by: input.by, revision: current!.revision + 1 };
        items.push({
          Put: { TableName: tableName(), Item: { ...keys.deletionRequest(input.tenantId), type: 'deletion_request', ...next }, ...revisionCondition(current) },
        });
      } else {
        const when = scheduledFor(input.at).toISOString();
        next = {
          tenant_id: input.tenantId,
          status: 'pending',
          requested_at: at,
          requested_by_user_id: input.userId,
          confirmed_by: input.by,
          last_confirmed_at: at,
          scheduled_for: when,
          cancelled_at: null,
          cancelled_by_user_id: null,
          started_at: null,
          completed_at: null,
          revision: (current?.revision ?? 0) + 1,
        };
        items.push(
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.deletionRequest(input.tenantId), type: 'deletion_request', ...next },
              ...revisionCondition(current),
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...platformKeys.deletionDue(when, input.tenantId), type: 'deletion_due', tenant_id: input.tenantId, scheduled_for: when },
            },
          },
          ...outboxItems(
            input.tenantId,
            'account.deletion_requested',
            { scheduled_for: when, requested_at: at, confirmed_by: input.by, requested_by_user_id: input.userId },
            input.at,
          ).items,
        );
      }
      return commit(items, next);
    },
    // A refused `extra` item is the caller's answer; else the request moved under us (another confirmation or a cancel).
    settle: (err) => {
      const failed = failedConditionIndex(err);
      if (onExtraFailed && failed >= 0 && failed < extra.length) throw onExtraFailed();
      return undefined;
    },
    policy: DELETION_WRITES,
    exhausted: () => contended(current),
  });
}

/** Cancel a pending request: its due item goes and account.deletion_cancelled commits with it. */
export async function cancelDeletion(input: { tenantId: string; userId: string; at: Date }): Promise<DeletionRequest> {
  let current: DeletionRequest | undefined;
  return conditionalTransaction({
    decide: async () => {
      current = await getDeletionRequest(input.tenantId);
      if (current?.status !== 'pending') {
        throw conflict(
          'account_deletion_not_pending',
          current ? `The account deletion is ${current.status}; only a pending one can be cancelled` : 'There is no account deletion to cancel',
          { status: current?.status ?? 'none' },
        );
      }
      const at = input.at.toISOString();
      const next: DeletionRequest = { ...current, status: 'cancelled', cancelled_at: at, cancelled_by_user_id: input.userId, revision: current.revision + 1 };
      return commit(
        [
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.deletionRequest(input.tenantId), type: 'deletion_request', ...next },
              ConditionExpression: 'revision = :rev AND #s = :pending',
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: { ':rev': current.revision, ':pending': 'pending' },
            },
          },
          { Delete: { TableName: tableName(), Key: platformKeys.deletionDue(current.scheduled_for, input.tenantId) } },
          ...outboxItems(
            input.tenantId,
            'account.deletion_cancelled',
            { cancelled_at: at, cancelled_by_user_id: input.userId, scheduled_for: current.scheduled_for },
            input.at,
          ).items,
        ],
        next,
      );
    },
    policy: DELETION_WRITES,
    exhausted: () => contended(current),
  });
}

/** Store a fresh proof's hash (the previous one stops working). */
export async function putDeletionProof(input: { tenantId: string; userId: string; tokenHash: string; at: Date }): Promise<{ expiresAt: Date }> {
  const expiresAt = new Date(input.at.getTime() + DELETION_PROOF_TTL_MS);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.deletionProof(input.tenantId),
        type: 'deletion_proof',
        tenant_id: input.tenantId,
        user_id: input.userId,
        token_hash: input.tokenHash,
        created_at: input.at.toISOString(),
        expires_at: expiresAt.toISOString(),
        ttl: Math.ceil(expiresAt.getTime() / 1000) + 86_400,
      },
    }),
  );
  return { expiresAt };
}

/** The conditional write that spends a proof (put it in the confirmation's transaction). */
export function spendProofItem(tenantId: string, tokenHash: string, at: Date): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.deletionProof(tenantId),
      UpdateExpression: 'SET spent_at = :at',
      ConditionExpression: 'token_hash = :h AND attribute_not_exists(spent_at) AND expires_at > :at',
      ExpressionAttributeValues: { ':h': tokenHash, ':at': at.toISOString() },
    },
  };
}

/** The request's move pending → deleting with its first checkpoint (conditional on the revision read), for the transaction that starts the run. */
export const startDeletionItem = (tenantId: string, revision: number, progress: unknown, at: Date): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.deletionRequest(tenantId),
    UpdateExpression: 'SET #s = :deleting, started_at = :at, progress = :p, revision = revision + :one',
    ConditionExpression: '#s = :pending AND revision = :rev',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':deleting': 'deleting', ':pending': 'pending', ':at': at.toISOString(), ':p': progress, ':one': 1, ':rev': revision },
  },
});

/** Store the running deletion's checkpoint (only while it is `deleting`). */
export async function saveDeletionProgress(tenantId: string, progress: unknown): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.deletionRequest(tenantId),
      UpdateExpression: 'SET progress = :p',
      ConditionExpression: '#s = :deleting',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':p': progress, ':deleting': 'deleting' },
    }),
  );
}

/** The run is over: the request `completed` (its checkpoint removed) and its due item gone. */
export async function completeDeletion(request: Pick<DeletionRequest, 'tenant_id' | 'scheduled_for'>, at: Date): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.deletionRequest(request.tenant_id),
      UpdateExpression: 'SET #s = :done, completed_at = :at, revision = revision + :one REMOVE progress',
      ConditionExpression: '#s = :deleting',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':done': 'completed', ':deleting': 'deleting', ':at': at.toISOString(), ':one': 1 },
    }),
  );
  await dropDeletionDue(platformKeys.deletionDue(request.scheduled_for, request.tenant_id));
}

export interface DueDeletion {
  tenantId: string;
  key: { pk: string; sk: string };
}

/** Every deletion due at `at` or before, oldest first (the job's work list). */
export async function dueDeletions(at: Date): Promise<DueDeletion[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk <= :upto',
    ExpressionAttributeValues: { ':pk': platformKeys.deletionsDuePartition, ':upto': `${at.toISOString()}#~` },
    ConsistentRead: true,
  });
  return items.map((item) => ({ tenantId: item.tenant_id as string, key: { pk: item.pk as string, sk: item.sk as string } }));
}

/** A due item goes (its run completed, or its request is gone, cancelled or done). */
export async function dropDeletionDue(key: { pk: string; sk: string }): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
}

export async function getDeletionProofUser(tenantId: string): Promise<string | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.deletionProof(tenantId), ConsistentRead: true }));
  return out.Item?.user_id as string | undefined;
}

/**
 * Answering policies. Each PUT stores a new immutable version (`POLICY#VERSION#n` in the
 * number's own partition) and, in the same transaction, moves the number onto the policy
 * route at that version — conditional on the number as read, its eligibility, its account's
 * verification and every ring_humans rep still being active with a transfer number
 * (the contract). Past versions stay readable: a call in progress carries
 * the version it started with.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { agentKeys, answeringPolicyKeys, keys } from '../db/keys.js';
import { newId } from '../ids.js';
import type { BusinessHours, PolicyStep } from '../policy/answering/model.js';
import type { AnsweringPolicy } from '../schemas/answering-policy.js';
import { type PhoneNumberRecord, phoneNumberUpdateItem } from './phone-numbers.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface StoredPolicy {
  id: string;
  tenant_id: string;
  phone_number_id: string;
  version: number;
  timezone: string;
  business_hours: BusinessHours;
  holiday_dates: string[];
  open_steps: PolicyStep[];
  closed_steps: PolicyStep[];
  created_at: string;
  updated_at: string;
}

export type PolicyContent = Pick<StoredPolicy, 'timezone' | 'business_hours' | 'holiday_dates' | 'open_steps' | 'closed_steps'>;

/** Which part of the write's conditions failed. */
export class PolicyWriteRefused extends Error {
  constructor(
    readonly what: 'number' | 'account' | 'rep' | 'version',
    readonly repId?: string,
  ) {
    super(`answering policy write refused: ${what}${repId ? ` ${repId}` : ''}`);
  }
}

export const presentPolicy = (p: StoredPolicy): AnsweringPolicy => ({
  id: p.id,
  phone_number_id: p.phone_number_id,
  timezone: p.timezone,
  business_hours: p.business_hours,
  holiday_dates: p.holiday_dates,
  open_steps: p.open_steps,
  closed_steps: p.closed_steps,
  version: p.version,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

export async function getPolicyVersion(tenantId: string, numberId: string, version: number): Promise<StoredPolicy | undefined> {
  if (!Number.isSafeInteger(version) || version < 1) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: answeringPolicyKeys.version(tenantId, numberId, version), ConsistentRead: true }));
  return out.Item as StoredPolicy | undefined;
}

/** The policy in force for the number (the latest version written), if any. */
export const getCurrentPolicy = (number: PhoneNumberRecord) =>
  number.policy_version ? getPolicyVersion(number.tenant_id, number.id, number.policy_version) : Promise.resolve(undefined);

/**
 * Write `content` as the number's next policy version and put the number on the policy
 * route, in one transaction. `previous` (the version in force) supplies the stable id and
 * created_at. Throws PolicyWriteRefused naming the condition that failed.
 */
export async function writePolicy(
  number: PhoneNumberRecord,
  previous: StoredPolicy | undefined,
  content: PolicyContent,
  repIds: readonly string[],
  now: Date,
): Promise<{ policy: StoredPolicy; number: PhoneNumberRecord }> {
  const at = now.toISOString();
  const version = (number.policy_version ?? 0) + 1;
  const policy: StoredPolicy = {
    id: previous?.id ?? newId('apl'),
    tenant_id: number.tenant_id,
    phone_number_id: number.id,
    version,
    ...content,
    created_at: previous?.created_at ?? at,
    updated_at: at,
  };
  const { item: numberUpdate, next } = phoneNumberUpdateItem(number, { inbound_route_mode: 'policy', policy_version: version }, { now });
  const update = numberUpdate.Update!;
  // Eligibility (rule 2) is re-checked inside the transaction, not only on the read.
  update.ConditionExpression += ' AND #elig_status = :active AND contains(capabilities, :voice) AND reputation_state <> :burned';
  update.ExpressionAttributeNames = { ...update.ExpressionAttributeNames, '#elig_status': 'status' };
  update.ExpressionAttributeValues = { ...update.ExpressionAttributeValues, ':active': 'active', ':voice': 'voice', ':burned': 'burned' };
  const items: TransactItem[] = [
    numberUpdate,
    {
      Put: {
        TableName: tableName(),
        Item: { ...answeringPolicyKeys.version(number.tenant_id, number.id, version), type: 'answering_policy', ...policy },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: keys.telephonyAccount(number.tenant_id, number.telephony_account_id),
        ConditionExpression: 'verification_status IN (:verified, :mock)',
        ExpressionAttributeValues: { ':verified': 'verified', ':mock': 'mock_verified' },
      },
    },
    ...repIds.map(
      (repId): TransactItem => ({
        ConditionCheck: {
          TableName: tableName(),
          Key: agentKeys.rep(number.tenant_id, repId),
          ConditionExpression: '#s = :active AND attribute_type(transfer_number, :string)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':active': 'active', ':string': 'S' },
        },
      }),
    ),
  ];
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    if (!(err instanceof TransactionCanceledException)) throw err;
    const reasons = err.CancellationReasons ?? [];
    const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
    if (failed === 0) throw new PolicyWriteRefused('number');
    if (failed === 1) throw new PolicyWriteRefused('version');
    if (failed === 2) throw new PolicyWriteRefused('account');
    if (failed >= 3) throw new PolicyWriteRefused('rep', repIds[failed - 3]);
    throw err;
  }
  return { policy, number: next };
}

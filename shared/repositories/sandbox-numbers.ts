/**
 * The sandbox carrier's numbers (`PLATFORM#SANDBOX#NUMBER#<e164>`, plus a SID pointer
 * `PLATFORM#SANDBOX#NUMBER_SID#<sid>`), platform-owned. A number is held by at most one
 * sandbox account: it is created only if absent, and routed or released only by its holder.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { putNew, transactWrite, tryTransactWrite } from '../db/transact-write.js';

type NumberKeys = { sid: string; account_sid: string; phone_number: string };

/** Store a new number and its SID pointer; false when the number (or the SID) is already held. */
export function putSandboxNumberItem(number: NumberKeys & object): Promise<boolean> {
  return tryTransactWrite([
    putNew({ ...platformKeys.sandboxNumber(number.phone_number), type: 'sandbox_number', ...number }),
    putNew({ ...platformKeys.sandboxNumberSid(number.sid), type: 'sandbox_number_sid', phone_number: number.phone_number }),
  ]);
}

export async function readSandboxNumber<T>(phoneE164: string): Promise<T | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.sandboxNumber(phoneE164), ConsistentRead: true }));
  return out.Item as T | undefined;
}

/** The number a SID points at (E.164), or undefined. */
export async function sandboxNumberOfSid(sid: string): Promise<string | undefined> {
  const pointer = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.sandboxNumberSid(sid), ConsistentRead: true }));
  return (pointer.Item as { phone_number?: string } | undefined)?.phone_number;
}

export interface SandboxRouting {
  voice_url: string | null;
  voice_method: string;
  status_callback: string | null;
  status_callback_method: string;
  sms_url: string | null;
  sms_method: string;
  updated_at: string;
}

/** Set where the number's calls and texts go, only while `number.account_sid` holds it. */
export async function setSandboxNumberRouting(number: NumberKeys, routing: SandboxRouting): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: platformKeys.sandboxNumber(number.phone_number),
      UpdateExpression:
        'SET voice_url = :vu, voice_method = :vm, status_callback = :sc, status_callback_method = :sm, sms_url = :su, sms_method = :smm, updated_at = :u',
      ConditionExpression: 'account_sid = :acct',
      ExpressionAttributeValues: {
        ':vu': routing.voice_url,
        ':vm': routing.voice_method,
        ':sc': routing.status_callback,
        ':sm': routing.status_callback_method,
        ':su': routing.sms_url,
        ':smm': routing.sms_method,
        ':u': routing.updated_at,
        ':acct': number.account_sid,
      },
    }),
  );
}

/** The number and its SID pointer go, only while `number.account_sid` holds it. */
export async function deleteSandboxNumberItem(number: NumberKeys): Promise<void> {
  await transactWrite([
    {
      Delete: {
        TableName: tableName(),
        Key: platformKeys.sandboxNumber(number.phone_number),
        ConditionExpression: 'account_sid = :acct',
        ExpressionAttributeValues: { ':acct': number.account_sid },
      },
    },
    { Delete: { TableName: tableName(), Key: platformKeys.sandboxNumberSid(number.sid) } },
  ]);
}

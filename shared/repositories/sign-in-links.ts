/**
 * Emailed sign-in links (see docs/decisions/auth-and-sessions.md): `TENANT#<t>` /
 * `SIGNIN_LINK#<usr>`, the newest link's token hash (a newer link overwrites it), spent by a
 * conditional write. A request for an email without a link writes a decoy of the same size
 * under one platform key, so both answers cost the same write.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys, platformKeys } from '../db/keys.js';
import type { TransactItem } from '../db/transact-write.js';

const DECOY_OWNER = { tenant_id: 'ten_00000000000000000000000000', user_id: 'usr_00000000000000000000000000' };

export interface SignInLink {
  /** null: no user gets a link (the decoy is written instead). */
  owner: { tenant_id: string; user_id: string } | null;
  token_hash: string;
  created_at: string;
  expires_at: string;
  /** Epoch seconds. */
  ttl: number;
}

/** Store the user's newest link (replacing the last), or the decoy. */
export async function putSignInLink(link: SignInLink): Promise<void> {
  const { owner, ...rest } = link;
  const item = owner
    ? { ...keys.signInLink(owner.tenant_id, owner.user_id), type: 'signin_link', ...owner, ...rest }
    : { ...platformKeys.signInLinkDecoy, type: 'signin_link_decoy', ...DECOY_OWNER, ...rest };
  await db().send(new PutCommand({ TableName: tableName(), Item: item }));
}

/** The conditional write that spends the user's link (unspent, this token, not expired at `at`). */
export const spendSignInLinkItem = (tenantId: string, userId: string, tokenHash: string, at: Date): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.signInLink(tenantId, userId),
    UpdateExpression: 'SET spent_at = :at',
    ConditionExpression: 'token_hash = :h AND attribute_not_exists(spent_at) AND expires_at > :at',
    ExpressionAttributeValues: { ':h': tokenHash, ':at': at.toISOString() },
  },
});

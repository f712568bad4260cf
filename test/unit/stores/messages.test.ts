import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { failUnsentItem, inboundTextPointerPut, inboundTextSeen } from '../../../shared/repositories/messages.js';
import { ddb, inputsOf } from '../../support/document-client-mock.js';

const T1 = 'ten_01hzy3v7q8a9b0c1d2e3f4g5h6';
const M1 = 'msg_01hzy3v7q8a9b0c1d2e3f4g5h6';
beforeEach(() => ddb.reset());

describe('messages store (inbound pointer, unsent failure)', () => {
  it('knows an inbound text by its carrier SID pointer (strongly consistent)', async () => {
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: { message_id: M1 } })
      .resolvesOnce({});
    expect(await inboundTextSeen('SM1')).toBe(true);
    expect(await inboundTextSeen('SM1')).toBe(false);
    expect(inputsOf(GetCommand)[0]!.ConsistentRead).toBe(true);
    expect(inboundTextPointerPut('SM1', T1, M1).Put).toMatchObject({
      ConditionExpression: 'attribute_not_exists(pk)',
      Item: { type: 'carrier_message', tenant_id: T1, message_id: M1 },
    });
  });

  it('fails an unsent message only if still queued, SID-less and under the same watch', () => {
    const failure = { code: 'send_unknown', message: 'm', next_permitted_at: null, carrier_error_code: null } as const;
    expect(failUnsentItem(T1, M1, 'since', failure, 'now').Update).toMatchObject({
      ConditionExpression: '#status = :queued AND provider_sid = :null AND send_watch_at = :since',
      ExpressionAttributeValues: { ':failed': 'failed', ':failure': failure, ':since': 'since', ':now': 'now' },
    });
  });
});

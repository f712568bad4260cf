/**
 * "A call ended" (shared/calls/call-ended.ts) as the carrier's status path reaches it
 * (shared/calls/carrier-status.ts applyCallStatus): the ending transaction carries the call's
 * minutes and its analysis watch; once it committed, one analysis request and one nudge of
 * its campaign go out. A replayed final callback changes nothing and sends nothing: the usage,
 * the request and the nudge happen exactly once. The call's Update is scripted (the in-memory
 * table does not apply Updates): the committed call is put back as the store would leave it.
 */
process.env.CALL_ANALYSIS_QUEUE_URL ??= 'https://sqs.test/analysis';
process.env.CALL_DISPATCH_QUEUE_URL ??= 'https://sqs.test/dispatch';

import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { applyCallStatus } from '../../../shared/calls/carrier-status.js';
import { callKeys } from '../../../shared/db/keys.js';
import type { CallRecord } from '../../../shared/repositories/calls.js';
import { ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';
import { outboundCallItem } from '../../support/store-items.js';

const sqs = mockClient(SQSClient);
const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CAMPAIGN = 'cmp_01JAAAAAAAAAAAAAAAAAAAAAAA';
const seed = (fields: Record<string, unknown>) =>
  table.put(outboundCallItem(T, CALL, { provider_call_sid: `CA${'1'.repeat(32)}`, telephony_account_id: null, ...fields }));
const answered = (campaignId: string | null) => seed({ state: 'answered', campaign_id: campaignId, event_count: 2, duration_seconds: null, ended_at: null });
const call = () => table.get(callKeys.call(T, CALL)) as unknown as CallRecord;

/** The ending commits: the call is left completed with its duration, as the store's Update would. */
function commitEndings() {
  ddb.on(TransactWriteCommand).callsFake(async () => {
    seed({ ...table.get(callKeys.call(T, CALL)), state: 'completed', duration_seconds: 61, ended_at: '2026-11-18T15:00:00.000Z', event_count: 3 });
    return {};
  });
}

const messages = () => sqs.commandCalls(SendMessageCommand).map((c) => ({ queue: c.args[0].input.QueueUrl, body: JSON.parse(c.args[0].input.MessageBody!) }));
// biome-ignore lint/suspicious/noExplicitAny: the transaction's item shapes
const meters = (n: number) => (inputsOf(TransactWriteCommand)[n]!.TransactItems as any[]).map((i) => i.Put?.Item?.meter).filter(Boolean);
// biome-ignore lint/suspicious/noExplicitAny: the transaction's item shapes
const typesIn = (n: number) => (inputsOf(TransactWriteCommand)[n]!.TransactItems as any[]).map((i) => i.Put?.Item?.type).filter(Boolean);

beforeEach(() => {
  table.reset();
  sqs.reset();
  sqs.on(SendMessageCommand).resolves({});
  commitEndings();
});

describe('a call ended', () => {
  it('the final callback: minutes and the analysis watch commit with the ending; then one analysis request and one campaign nudge', async () => {
    answered(CAMPAIGN);
    await applyCallStatus(call(), { CallStatus: 'completed' }, 61);
    expect(inputsOf(TransactWriteCommand)).toHaveLength(1);
    expect(meters(0)).toEqual(['telephony_minutes']);
    expect(typesIn(0)).toContain('analysis_watch');
    expect(messages()).toEqual([
      { queue: 'https://sqs.test/analysis', body: { type: 'call.analyze', tenant_id: T, call_id: CALL } },
      { queue: 'https://sqs.test/dispatch', body: { type: 'campaign.launch', tenant_id: T, campaign_id: CAMPAIGN } },
    ]);
  });

  it('a replayed final callback writes no second usage and sends nothing again', async () => {
    answered(CAMPAIGN);
    await applyCallStatus(call(), { CallStatus: 'completed' }, 61);
    await applyCallStatus(call(), { CallStatus: 'completed' }, 61);
    expect(inputsOf(TransactWriteCommand)).toHaveLength(1);
    expect(messages().map((m) => m.body.type)).toEqual(['call.analyze', 'campaign.launch']);
  });

  it('a call outside a campaign: the analysis request only', async () => {
    answered(null);
    await applyCallStatus(call(), { CallStatus: 'completed' }, 61);
    expect(messages().map((m) => m.body.type)).toEqual(['call.analyze']);
  });

  it('a request that cannot be sent is not the ending’s failure: the committed watch re-sends it later', async () => {
    answered(CAMPAIGN);
    sqs.on(SendMessageCommand).rejects(new Error('queue down'));
    await expect(applyCallStatus(call(), { CallStatus: 'completed' }, 61)).resolves.toBeUndefined();
    expect(typesIn(0)).toContain('analysis_watch');
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(2);
  });
});

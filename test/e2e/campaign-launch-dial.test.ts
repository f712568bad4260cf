/**
 * A freed slot's launch dials the call it just wrote without reading it back (see
 * docs/decisions/campaigns.md, "The launch dials what it wrote"): no GetItem of the call nor of
 * the campaign's settings between the launch and the dial. What the reads checked still holds:
 * a campaign paused between the launch and the dial is refused by the dial's own transaction
 * (the attempt is parked, nothing reaches the carrier). No workers and no ticks run here: the
 * test makes every step itself.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dispatchCall } from '../../shared/calls/dispatch.js';
import { pinnedVersion } from '../../shared/calls/pinned-versions.js';
import { launchNow } from '../../shared/campaigns/driver.js';
import { launchAttempts } from '../../shared/campaigns/launch.js';
import { scrubPage } from '../../shared/campaigns/scrub.js';
import { now } from '../../shared/clock.js';
import { db } from '../../shared/db/client.js';
import { getCampaign, moveCampaign } from '../../shared/repositories/campaigns.js';
import type { OutboundCallRecord } from '../../shared/repositories/outbound-calls.js';
import { useTestStack } from '../support/stack.js';
import { type CallWorld, callWorld, resetClock, sandboxCallsFrom, setClock, storedCall } from './call-fixtures.js';
import { futureAllowedAt, importList, newCampaign, poolOf } from './campaign-fixtures.js';
import { client, newTenant } from './client.js';
import { randomNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });
afterEach(() => resetClock());

let w: CallWorld;
let tenantId: string;
/** The key of every GetItem sent (JSON), in order. */
const gets: string[] = [];
beforeAll(async () => {
  const t = await newTenant('Campaign launch dial');
  tenantId = t.tenantId;
  w = await callWorld(client(stack, t.token), t.tenantId);
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (/^Get(Item)?Command$/.test(String(context.commandName))) gets.push(JSON.stringify((args.input as { Key?: unknown }).Key));
      return next(args);
    },
    { step: 'initialize', name: 'campaignLaunchGets' },
  );
});

/** A running campaign over `phones` with its whole list scrubbed and nothing launched yet (the driver's steps, made here). */
async function runningCampaign(phones: string[], cap: number) {
  setClock(futureAllowedAt());
  const listId = await importList(w.api, phones);
  const pool = await poolOf(w, 0);
  const c = await newCampaign(w, listId, pool.id, { concurrency_cap: cap });
  expect((await w.api('POST', `/v1/campaigns/${c.id}/start`)).status).toBe(200);
  const record = (await getCampaign(tenantId, c.id))!;
  while (!(await scrubPage(record)));
  await moveCampaign(tenantId, c.id, 'ready', 'ready', now());
  await moveCampaign(tenantId, c.id, 'run', 'running', now());
  return { id: c.id, numbers: pool.numbers };
}

describe('the launch of a freed slot dials what it wrote', () => {
  it('reads neither the call nor the campaign settings back, and dials it once', async () => {
    const phones = [randomNumber('212'), randomNumber('212')];
    const c = await runningCampaign(phones, 1);
    await pinnedVersion(tenantId, (await getCampaign(tenantId, c.id))!.agent_version_id!); // kept per instance, as a warm worker has it
    const from = gets.length;
    expect(await launchNow(tenantId, c.id)).toBe(1);
    const read = gets.slice(from); // the launch and its dial's reads, before the test's own
    const dialled = (await sandboxCallsFrom(c.numbers[0]!)).filter((x) => phones.includes(x.to as string));
    expect(dialled).toHaveLength(1);
    const callId = /call_id=([^&]+)/.exec(String(dialled[0]!.status_callback))![1]!;
    expect((await storedCall(tenantId, callId)).state).toBe('dialing');
    expect(read.filter((k) => k.includes(callId))).toEqual([]);
    expect(read.filter((k) => k.includes(`CAMPAIGN#${c.id}`))).toEqual([]);
  }, 120_000);

  it('a campaign paused between the launch and the dial: the dial transaction refuses it, the attempt is parked, nothing is dialled', async () => {
    const phones = [randomNumber('212')];
    const c = await runningCampaign(phones, 1);
    const launched: OutboundCallRecord[] = [];
    const record = (await getCampaign(tenantId, c.id))!;
    expect(await launchAttempts(record, now(), async (call) => void launched.push(call))).toBe(1);
    expect((await w.api('POST', `/v1/campaigns/${c.id}/pause`)).body.status).toBe('paused');

    const pinned = (await pinnedVersion(tenantId, record.agent_version_id!))!;
    const call = launched[0]!;
    const outcome = await dispatchCall(tenantId, call.id, { launched: { call, numberIds: record.pool_number_ids, version: pinned.version } });
    expect(outcome).toBe('parked');
    expect((await storedCall(tenantId, call.id)).state).toBe('scheduled');
    expect((await sandboxCallsFrom(c.numbers[0]!)).filter((x) => phones.includes(x.to as string))).toEqual([]);
  }, 120_000);
});

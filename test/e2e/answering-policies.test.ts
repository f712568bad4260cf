import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { setRepStatusAction } from '../../shared/admin/bootstrap.js';
import { db, tableName } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { getCurrentPolicy, getPolicyVersion, PolicyWriteRefused, writePolicy } from '../../shared/repositories/answering-policies.js';
import { getPhoneNumber } from '../../shared/repositories/phone-numbers.js';
import { newSandboxCredentials, putSandboxAccount } from '../../shared/sandbox/accounts.js';
import { useTestStack } from '../support/stack.js';
import { locs, newRep } from './agent-fixtures.js';
import { type ApiResponse, client, newTenant } from './client.js';
import { activeNumber, draftAgent, publishedAgent } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });
type Api = ReturnType<typeof client>;

async function setup() {
  const t = await newTenant();
  const api = client(stack, t.token);
  const number = await activeNumber(api);
  return { ...t, api, number };
}

/** Weekdays 09:00–17:00 in New York; key 1 rings a rep then falls to the AI, 2 voicemail, 9 a nested menu. */
const policyBody = (repId: string, agentId: string, over: Record<string, unknown> = {}) => ({
  timezone: 'America/New_York',
  business_hours: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((d) => [d, [{ start: '09:00', end: '17:00' }]])),
  holiday_dates: ['2026-12-25'],
  open_steps: [
    {
      prompt: 'Press 1 for sales, 2 to leave a message, 9 for more.',
      branches: {
        '1': [
          { type: 'ring_humans', rep_ids: [repId], timeout_seconds: 15 },
          { type: 'ai', agent_id: agentId },
        ],
        '2': [{ type: 'voicemail', greeting: 'Please leave a message.' }],
        '9': [{ prompt: 'Press 0 to hang up.', branches: { '0': [{ type: 'hangup' }] }, timeout_branch: [{ type: 'hangup' }] }],
      },
      timeout_branch: [{ type: 'ai', agent_id: agentId }],
    },
  ],
  closed_steps: [{ type: 'voicemail', greeting: 'We are closed.' }],
  ...over,
});

describe('PUT /v1/phone-numbers/{id}/answering-policy', () => {
  it('stores version 1 with the agent version pinned, moves the number to the policy route; a second PUT is version 2 and keeps version 1', async () => {
    const { api, number, tenantId } = await setup();
    const rep = await newRep(tenantId);
    const agent = await publishedAgent(api);
    const res = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: policyBody(rep.id, agent.agentId) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^apl_/),
      phone_number_id: number.id,
      timezone: 'America/New_York',
      version: 1,
      holiday_dates: ['2026-12-25'],
    });
    const menu = res.body.open_steps[0];
    expect(menu).toMatchObject({ type: 'menu', timeout_seconds: 5, max_invalid_attempts: 2 });
    expect(menu.timeout_branch[0]).toEqual({ type: 'ai', agent_id: agent.agentId, agent_version_id: agent.versionId, agent_version: 1 });
    expect(menu.branches['1'][1]).toEqual({ type: 'ai', agent_id: agent.agentId, agent_version_id: agent.versionId, agent_version: 1 });
    expect((await api('GET', `/v1/phone-numbers/${number.id}`)).body.inbound_route_mode).toBe('policy');
    expect((await api('GET', `/v1/phone-numbers/${number.id}/answering-policy`)).body).toEqual(res.body);

    const again = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, {
      body: { timezone: 'America/Chicago', open_steps: [{ type: 'hangup' }] },
    });
    expect(again.body).toMatchObject({
      id: res.body.id,
      version: 2,
      timezone: 'America/Chicago',
      business_hours: {},
      holiday_dates: [],
      closed_steps: [],
      created_at: res.body.created_at,
    });
    expect((await api('GET', `/v1/phone-numbers/${number.id}/answering-policy`)).body.version).toBe(2);
    expect((await getPolicyVersion(tenantId, number.id, 1))?.timezone).toBe('America/New_York');
  });

  it('refuses unusable references at their exact locs: unknown or unpublished agents, disabled, unknown or number-less reps', async () => {
    const { api, number, tenantId } = await setup();
    const disabled = await newRep(tenantId, { disabled: true });
    const numberless = await newRep(tenantId, { number: null });
    const draft = await draftAgent(api);
    const body = {
      timezone: 'America/New_York',
      open_steps: [
        {
          prompt: 'p',
          branches: { '1': [{ type: 'ring_humans', rep_ids: [disabled.id, numberless.id, 'rep_01ARZ3NDEKTSV4RRFFQ69G5FAV'] }] },
          timeout_branch: [{ type: 'ai', agent_id: draft }],
        },
        { type: 'ai', agent_id: 'agt_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
      ],
    };
    const res = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(
      [
        'body.open_steps.0.branches.1.0.rep_ids.0:rep_disabled',
        'body.open_steps.0.branches.1.0.rep_ids.1:rep_not_transfer_enabled',
        'body.open_steps.0.branches.1.0.rep_ids.2:not_found',
        'body.open_steps.0.timeout_branch.0.agent_id:agent_not_published',
        'body.open_steps.1.agent_id:not_found',
      ].sort(),
    );
    expect((await api('GET', `/v1/phone-numbers/${number.id}`)).body.inbound_route_mode).toBe('agent');
    expect((await api('GET', `/v1/phone-numbers/${number.id}/answering-policy`)).status).toBe(404);
  });

  it.each([
    ['a zone that is not IANA', { timezone: 'Mars/Olympus' }, 'body.timezone'],
    ['an unknown weekday', { business_hours: { funday: [] } }, 'body.business_hours.funday'],
    ['a window ending before it starts', { business_hours: { monday: [{ start: '17:00', end: '09:00' }] } }, 'body.business_hours.monday.0'],
    ['a bad holiday date', { holiday_dates: ['2026-02-30'] }, 'body.holiday_dates.0'],
    [
      'a multi-key branch',
      { open_steps: [{ prompt: 'p', branches: { '12': [{ type: 'hangup' }] }, timeout_branch: [{ type: 'hangup' }] }] },
      'body.open_steps.0.branches.12',
    ],
    ['no open steps', { open_steps: [] }, 'body.open_steps'],
  ])('%s → 422 at its loc', async (_name, over, loc) => {
    const { api, number } = await setup();
    const res = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, {
      body: { timezone: 'America/New_York', open_steps: [{ type: 'hangup' }], ...over },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'))).toContain(loc);
  });

  it('refuses menus nested deeper than 5 levels at the sixth menu', async () => {
    const { api, number } = await setup();
    const nest = (depth: number): Record<string, unknown> => ({
      prompt: `level ${depth}`,
      branches: { '1': depth > 1 ? [nest(depth - 1)] : [{ type: 'hangup' }] },
      timeout_branch: [{ type: 'hangup' }],
    });
    expect((await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: { timezone: 'UTC', open_steps: [nest(5)] } })).status).toBe(200);
    const deep = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: { timezone: 'UTC', open_steps: [nest(6)] } });
    expect(locs(deep.body)).toEqual(['body.open_steps.0.branches.1.0.branches.1.0.branches.1.0.branches.1.0.branches.1.0:menu_too_deep']);
  });

  describe('an ineligible number (rule 2) is a 409 number_ineligible naming its reasons, and nothing changes', () => {
    const hangup = { timezone: 'UTC', open_steps: [{ type: 'hangup' }] };
    /** PUT refused with these reasons; the number keeps its route and has no policy. */
    async function refused(api: Api, tenantId: string, numberId: string, reasons: string[]) {
      const before = (await getPhoneNumber(tenantId, numberId))!;
      const res = await api('PUT', `/v1/phone-numbers/${numberId}/answering-policy`, { body: hangup });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'number_ineligible', reasons });
      expect(res.body.detail).toMatch(/^This number cannot take an answering policy: /);
      const after = (await getPhoneNumber(tenantId, numberId))!;
      expect([after.inbound_route_mode, after.policy_version ?? null, after.revision]).toEqual([
        before.inbound_route_mode,
        before.policy_version ?? null,
        before.revision,
      ]);
      expect((await api('GET', `/v1/phone-numbers/${numberId}/answering-policy`)).status).toBe(404);
    }
    /** What no route can do to a number (the carrier or a reputation monitor does it): set directly. */
    const setNumber = (tenantId: string, numberId: string, field: 'status' | 'reputation_state', value: string) =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.phoneNumber(tenantId, numberId),
          UpdateExpression: 'SET #f = :v',
          ExpressionAttributeNames: { '#f': field },
          ExpressionAttributeValues: { ':v': value },
        }),
      );

    it('an sms-only number', async () => {
      const t = await newTenant();
      const api = client(stack, t.token);
      const sms = await activeNumber(api, { capabilities: ['sms'] });
      await refused(api, t.tenantId, sms.id, ['number_without_voice']);
    });

    it('a number that is not active (quarantined, then provisioning)', async () => {
      const { api, number, tenantId } = await setup();
      for (const status of ['quarantined', 'provisioning']) {
        await setNumber(tenantId, number.id, 'status', status);
        await refused(api, tenantId, number.id, ['number_not_active']);
      }
      await setNumber(tenantId, number.id, 'status', 'active');
      expect((await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: hangup })).status).toBe(200);
    });

    it('a number whose reputation is burned (at_risk and flagged still answer)', async () => {
      const { api, number, tenantId } = await setup();
      await setNumber(tenantId, number.id, 'reputation_state', 'burned');
      await refused(api, tenantId, number.id, ['number_burned']);
      await setNumber(tenantId, number.id, 'reputation_state', 'flagged');
      expect((await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: hangup })).status).toBe(200);
    });

    it('a number whose byo account is back to pending (new credentials) or failed its verification', async () => {
      const t = await newTenant();
      const api = client(stack, t.token);
      const creds = newSandboxCredentials();
      await putSandboxAccount(creds);
      const accountId = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: creds } })).body.id as string;
      expect((await api('POST', `/v1/telephony-accounts/${accountId}/verify`)).body.verification_status).toBe('verified');
      const number = await activeNumber(api, { accountId });
      // New credentials return the account to pending; the number stays active.
      const fresh = newSandboxCredentials();
      await putSandboxAccount(fresh);
      expect((await api('PATCH', `/v1/telephony-accounts/${accountId}`, { body: { credentials: fresh } })).body.verification_status).toBe('pending');
      await refused(api, t.tenantId, number.id, ['account_not_verified']);
      // Credentials the carrier refuses: failed.
      await api('PATCH', `/v1/telephony-accounts/${accountId}`, { body: { credentials: { account_sid: fresh.account_sid, auth_token: 'f'.repeat(32) } } });
      expect((await api('POST', `/v1/telephony-accounts/${accountId}/verify`)).body.verification_status).toBe('failed');
      await refused(api, t.tenantId, number.id, ['account_not_verified']);
    });

    it('every reason at once', async () => {
      const t = await newTenant();
      const api = client(stack, t.token);
      const sms = await activeNumber(api, { capabilities: ['sms'] });
      await setNumber(t.tenantId, sms.id, 'status', 'resting');
      await setNumber(t.tenantId, sms.id, 'reputation_state', 'burned');
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.telephonyAccount(t.tenantId, sms.telephony_account_id),
          UpdateExpression: 'SET verification_status = :s',
          ExpressionAttributeValues: { ':s': 'suspended' },
        }),
      );
      await refused(api, t.tenantId, sms.id, ['number_not_active', 'number_without_voice', 'account_not_verified', 'number_burned']);
    });
  });

  it('the transaction keeps the previous route and policy when a rep is disabled between the check and the write', async () => {
    const { api, number, tenantId } = await setup();
    const rep = await newRep(tenantId);
    const first = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: { timezone: 'UTC', open_steps: [{ type: 'hangup' }] } });
    expect(first.body.version).toBe(1);
    const before = (await getPhoneNumber(tenantId, number.id))!;
    // The handler checked the rep (active); it is disabled before the write commits.
    await setRepStatusAction({ tenantId, repId: rep.id, status: 'disabled' });
    const write = writePolicy(
      before,
      await getCurrentPolicy(before),
      {
        timezone: 'UTC',
        business_hours: {},
        holiday_dates: [],
        open_steps: [{ type: 'ring_humans', rep_ids: [rep.id], timeout_seconds: 20 }],
        closed_steps: [],
      },
      [rep.id],
      new Date(),
    );
    await expect(write).rejects.toEqual(new PolicyWriteRefused('rep', rep.id));
    const after = (await getPhoneNumber(tenantId, number.id))!;
    expect([after.inbound_route_mode, after.policy_version, after.revision]).toEqual([before.inbound_route_mode, 1, before.revision]);
    expect(await getPolicyVersion(tenantId, number.id, 2)).toBeUndefined();
    expect((await api('GET', `/v1/phone-numbers/${number.id}/answering-policy`)).body.version).toBe(1);
  });

  it('through the route: a rep disabled between the handler’s check and the transaction is a 422 rep_disabled at its loc, and policy version 1 stays in force', async () => {
    const { api, number, tenantId } = await setup();
    const rep = await newRep(tenantId);
    const first = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: { timezone: 'UTC', open_steps: [{ type: 'hangup' }] } });
    expect(first.body.version).toBe(1);
    const before = (await getPhoneNumber(tenantId, number.id))!;

    // The stack serves this process's handlers with this process's DynamoDB client: a hook on it
    // disables the rep just before the policy transaction is sent (after the handler read the rep as active).
    let disabled = false;
    const HOOK = 'disableRepBeforePolicyWrite';
    const isPolicyWrite = (input: unknown) =>
      ((input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] }).TransactItems ?? []).some((i) => {
        const type = i.Put?.Item?.type as unknown;
        return type === 'answering_policy' || (type as { S?: string } | undefined)?.S === 'answering_policy';
      });
    db().middlewareStack.add(
      (next) => async (args) => {
        if (!disabled && isPolicyWrite(args.input)) {
          disabled = true;
          await setRepStatusAction({ tenantId, repId: rep.id, status: 'disabled' });
        }
        return next(args);
      },
      { step: 'initialize', name: HOOK },
    );
    let res: ApiResponse;
    try {
      res = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, {
        body: {
          timezone: 'UTC',
          open_steps: [
            {
              prompt: 'Press 1.',
              branches: { '1': [{ type: 'ring_humans', rep_ids: [rep.id] }] },
              timeout_branch: [{ type: 'ring_humans', rep_ids: [rep.id] }],
            },
          ],
        },
      });
    } finally {
      db().middlewareStack.remove(HOOK);
    }
    expect(disabled).toBe(true);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'open_steps', 0, 'branches', '1', 0, 'rep_ids', 0],
        msg: expect.stringContaining('nothing changed'),
        type: 'rep_disabled',
        input: rep.id,
      },
      {
        loc: ['body', 'open_steps', 0, 'timeout_branch', 0, 'rep_ids', 0],
        msg: expect.stringContaining('nothing changed'),
        type: 'rep_disabled',
        input: rep.id,
      },
    ]);
    const after = (await getPhoneNumber(tenantId, number.id))!;
    expect([after.inbound_route_mode, after.policy_version, after.revision]).toEqual(['policy', 1, before.revision]);
    expect(await getPolicyVersion(tenantId, number.id, 2)).toBeUndefined();
    expect((await api('GET', `/v1/phone-numbers/${number.id}/answering-policy`)).body).toEqual(first.body);
    // With the rep active again, the same document is version 2.
    await setRepStatusAction({ tenantId, repId: rep.id, status: 'active' });
    expect(
      (
        await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, {
          body: { timezone: 'UTC', open_steps: [{ type: 'ring_humans', rep_ids: [rep.id] }] },
        })
      ).body.version,
    ).toBe(2);
  });

  it("another tenant's number is a 404 on every policy route; a member may read but not write", async () => {
    const { api, number } = await setup();
    await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: { timezone: 'UTC', open_steps: [{ type: 'hangup' }] } });
    const stranger = client(stack, (await newTenant()).token);
    expect((await stranger('GET', `/v1/phone-numbers/${number.id}/answering-policy`)).status).toBe(404);
    expect(
      (await stranger('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: { timezone: 'UTC', open_steps: [{ type: 'hangup' }] } })).status,
    ).toBe(404);
    expect((await stranger('POST', `/v1/phone-numbers/${number.id}/answering-policy/simulate`, { body: {} })).status).toBe(404);
    const key = (await api('POST', '/v1/api-keys', { body: { name: 'm', role: 'member' } })).body;
    const member = client(stack, key.secret);
    expect((await member('GET', `/v1/phone-numbers/${number.id}/answering-policy`)).status).toBe(200);
    expect(
      (await member('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: { timezone: 'UTC', open_steps: [{ type: 'hangup' }] } })).status,
    ).toBe(403);
  });
});

describe('POST …/answering-policy/simulate', () => {
  async function withPolicy(over: Record<string, unknown> = {}) {
    const { api, number, tenantId } = await setup();
    const rep = await newRep(tenantId);
    const agent = await publishedAgent(api);
    const put = await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: policyBody(rep.id, agent.agentId, over) });
    expect(put.status).toBe(200);
    const sim = async (body: Record<string, unknown>) => (await api('POST', `/v1/phone-numbers/${number.id}/answering-policy/simulate`, { body })).body;
    return { sim, rep, agent };
  }

  it('window start is open, window end is closed, a holiday is closed (Monday 2026-11-23 in New York = UTC-5)', async () => {
    const { sim } = await withPolicy();
    const at = async (iso: string) => (await sim({ at: iso })).schedule;
    expect(await at('2026-11-23T13:59:59Z')).toMatchObject({ list: 'closed', reason: 'outside_hours', local: { time: '08:59', weekday: 'monday' } });
    expect(await at('2026-11-23T14:00:00Z')).toMatchObject({ list: 'open', reason: 'within_hours', window: { start: '09:00', end: '17:00' } });
    expect(await at('2026-11-23T21:59:59Z')).toMatchObject({ list: 'open' });
    expect(await at('2026-11-23T22:00:00Z')).toMatchObject({ list: 'closed', reason: 'outside_hours' });
    expect(await at('2026-11-28T15:00:00Z')).toMatchObject({ list: 'closed', reason: 'outside_hours', local: { weekday: 'saturday' } });
    expect(await at('2026-12-25T15:00:00Z')).toMatchObject({ list: 'closed', reason: 'holiday' });
  });

  it('an empty business_hours is open at every hour; naming one day closes the others', async () => {
    const open = await withPolicy({ business_hours: {} });
    expect((await open.sim({ at: '2026-11-29T07:00:00Z' })).schedule).toMatchObject({ list: 'open', reason: 'always_open' });
    const mondays = await withPolicy({ business_hours: { monday: [{ start: '00:00', end: '24:00' }] } });
    expect((await mondays.sim({ at: '2026-11-23T15:00:00Z' })).schedule.list).toBe('open');
    expect((await mondays.sim({ at: '2026-11-24T15:00:00Z' })).schedule).toMatchObject({
      list: 'closed',
      reason: 'outside_hours',
      local: { weekday: 'tuesday' },
    });
  });

  it('follows key presses: a branch, a rep who does not answer, invalid keys, a timeout, a nested menu', async () => {
    const { sim, rep, agent } = await withPolicy();
    const open = '2026-11-23T15:00:00Z';
    const sales = await sim({ at: open, digits: ['1'] });
    expect(sales.terminal).toMatchObject({ type: 'ring_humans', step_path: 'open.0.b1.0', on_no_answer: 'open.0.b1.1' });
    expect(sales.trace.map((t: { type: string; outcome?: string }) => `${t.type}:${t.outcome ?? ''}`)).toEqual(['menu:branch', 'ring_humans:answered']);
    expect(sales.trace[1].rep_ids).toEqual([rep.id]);
    const unanswered = await sim({ at: open, digits: ['1'], reps_answer: false });
    expect(unanswered.terminal).toMatchObject({ type: 'ai', step_path: 'open.0.b1.1', step: { agent_version_id: agent.versionId } });
    const invalid = await sim({ at: open, digits: ['7', '7'] });
    expect(invalid.trace.map((t: { type: string; outcome?: string }) => `${t.type}:${t.outcome ?? ''}`)).toEqual([
      'menu:invalid',
      'menu:invalid_exhausted',
      'ai:',
    ]);
    expect(invalid.terminal).toMatchObject({ type: 'ai', step_path: 'open.0.t.0' });
    expect((await sim({ at: open })).terminal).toMatchObject({ type: 'ai', step_path: 'open.0.t.0' });
    expect(await sim({ at: open, digits: ['9', '0', '5'] })).toMatchObject({
      terminal: { type: 'hangup', step_path: 'open.0.b9.0.b0.0' },
      unused_digits: ['5'],
    });
    expect((await sim({ at: '2026-11-23T23:00:00Z', digits: ['1'] })).terminal).toMatchObject({ type: 'voicemail', step_path: 'closed.0' });
  });

  it('refuses a key that is not a phone key and a malformed instant', async () => {
    const { sim } = await withPolicy();
    const res = await sim({ digits: ['A'], at: 'tomorrow' });
    expect(locs(res).sort()).toEqual(['body.at:datetime_from_date_parsing', 'body.digits.0:enum'].sort());
  });
});

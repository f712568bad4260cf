/**
 * The agent version kept per warm instance (shared/calls/version-cache.ts, configured in compliance-inputs.ts) and the
 * judgement's reads around it (shared/calls/compliance-inputs.ts) on a table in memory:
 * a version is read once per immutable id, a new publish (new id) is read at once, and
 * the suppression, the agent item and the contact are read on every judgement.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { gatherComplianceInputs, latestVersionOf } from '../../../shared/calls/compliance-inputs.js';

import { agentKeys, contactKeys, keys, suppressionKeys } from '../../../shared/db/keys.js';
import { memoryTable } from '../../support/document-client-mock.js';
import { activeSuppressionItem, phoneNumberItem, telephonyAccountItem } from '../../support/store-items.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const AGENT = 'agt_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CONTACT = 'con_01JAAAAAAAAAAAAAAAAAAAAAAA';
const ACCOUNT = 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA';
const NUMBER = 'pnb_01JAAAAAAAAAAAAAAAAAAAAAAA';
const PHONE = '+12125550199';
const AT = new Date('2026-11-18T15:00:00.000Z');
const v = (n: number) => `agv_01J${String(n).repeat(23)}`;

const profile = {
  id: 'cpr_01JAAAAAAAAAAAAAAAAAAAAAAA',
  name: 'Reminders',
  call_purpose: 'informational',
  subject: 'appointment_reminders',
  seller_name: 'Acme',
  calling_window: null,
};
function publish(n: number) {
  table.put({
    ...agentKeys.version(T, AGENT, n),
    type: 'agent_version',
    tenant_id: T,
    id: v(n),
    agent_id: AGENT,
    version: n,
    content_hash: `h${n}`,
    definition: { name: `v${n}` },
    objectives: [],
    rubric: {},
    compliance_profile: profile,
    published_at: '2026-11-01T00:00:00Z',
  });
  table.put({ ...agentKeys.agent(T, AGENT), type: 'agent', id: AGENT, version_count: n, latest_version_id: v(n) });
}
const versionReads = () => table.sent.filter((s) => s.command === 'GetItem' && String(s.input.Key.pk).includes('#AGENT#')).length;

beforeEach(() => {
  table.reset();
  table.put({
    ...contactKeys.contact(T, CONTACT),
    type: 'contact',
    id: CONTACT,
    tenant_id: T,
    phone_e164: PHONE,
    do_not_call: false,
    timezone: 'America/New_York',
    history_keyed: true,
    consent_facts: [],
  });
  table.put(phoneNumberItem(T, NUMBER, ACCOUNT, '+12125559000'));
  table.put(telephonyAccountItem(T, ACCOUNT));
});

describe('latestVersionOf', () => {
  it('reads a version once per immutable id; a new publish (a new id) is read at once, never the kept one', async () => {
    publish(1);
    const head1 = { version_count: 1, latest_version_id: v(1) };
    expect((await latestVersionOf(T, AGENT, head1))?.id).toBe(v(1));
    expect((await latestVersionOf(T, AGENT, head1))?.id).toBe(v(1));
    expect(versionReads()).toBe(1);
    publish(2);
    expect((await latestVersionOf(T, AGENT, { version_count: 2, latest_version_id: v(2) }))?.id).toBe(v(2));
    expect(versionReads()).toBe(2);
  });

  it('keeps nothing it cannot name by id (an agent item from before latest_version_id), and answers undefined for a never-published agent', async () => {
    publish(1);
    table.put({ ...agentKeys.agent(T, AGENT), type: 'agent', id: AGENT, version_count: 1 });
    await latestVersionOf(T, 'agt_01JZZZZZZZZZZZZZZZZZZZZZZZ', { version_count: 0, latest_version_id: null });
    expect(versionReads()).toBe(0);
    const before = versionReads();
    await latestVersionOf(T, AGENT, { version_count: 1, latest_version_id: null });
    await latestVersionOf(T, AGENT, { version_count: 1, latest_version_id: null });
    expect(versionReads() - before).toBe(2);
  });
});

describe('gatherComplianceInputs', () => {
  it('reads the agent item, the suppression and the contact on every judgement: a suppression or a publish between two is seen', async () => {
    publish(3);
    const first = await gatherComplianceInputs(T, { agent_id: AGENT }, CONTACT, AT);
    expect(first.found && first.inputs.suppressed).toBe(false);
    expect(first.found && first.version.id).toBe(v(3));
    expect(first.found && first.caller.outcome === 'chosen' && first.caller.number.provider).toBe('mock');

    table.put(activeSuppressionItem(T, PHONE));
    publish(4);
    table.forgetSent();
    const second = await gatherComplianceInputs(T, { agent_id: AGENT }, CONTACT, AT);
    expect(second.found && second.inputs.suppressed).toBe(true);
    expect(second.found && second.version.id).toBe(v(4));
    // contact (by key) + numbers, one batch, the new version once: never a cached suppression.
    expect(table.sent.map((s) => s.command).sort()).toEqual(['BatchGetItem', 'BatchGetItem', 'GetItem', 'Query']);

    table.forgetSent();
    table.remove(suppressionKeys.active(T, PHONE));
    const third = await gatherComplianceInputs(T, { agent_id: AGENT }, CONTACT, AT);
    expect(third.found && third.inputs.suppressed).toBe(false);
    expect(table.sent.map((s) => s.command).sort()).toEqual(['BatchGetItem', 'BatchGetItem', 'Query']);
  });

  it('reads every account of the tenant only when no number can place the call', async () => {
    publish(5);
    table.remove(keys.phoneNumber(T, NUMBER));
    const out = await gatherComplianceInputs(T, { agent_id: AGENT }, CONTACT, AT);
    expect(out.found && out.caller.outcome).toBe('none_at_all');
    expect(table.sent.filter((s) => s.command === 'Query').map((s) => s.input.ExpressionAttributeValues[':prefix'])).toEqual(['NUMBER#', 'TELACCT#']);
  });

  it('tells an unknown agent from an unpublished one, and an unknown contact', async () => {
    table.put({ ...agentKeys.agent(T, AGENT), type: 'agent', id: AGENT, version_count: 0, latest_version_id: null });
    expect(await gatherComplianceInputs(T, { agent_id: AGENT }, CONTACT, AT)).toEqual({ found: false, agent: 'not_published', contact: 'ok' });
    expect(await gatherComplianceInputs(T, { agent_id: 'agt_01JYYYYYYYYYYYYYYYYYYYYYYY' }, CONTACT, AT)).toEqual({
      found: false,
      agent: 'unknown',
      contact: 'ok',
    });
    expect(await gatherComplianceInputs(T, { agent_id: AGENT }, 'con_01JYYYYYYYYYYYYYYYYYYYYYYY', AT)).toEqual({
      found: false,
      agent: 'not_published',
      contact: 'unknown',
    });
  });
});

/**
 * POST /v1/campaigns (see docs/decisions/campaigns.md): every reference checked, all problems at once (422 at each
 * field's loc): the agent (published: 409 agent_not_published otherwise, as POST /v1/calls),
 * the contact list, the pool, the telephony account (every pool number on it), and the
 * compliance profile (must be the agent's: the engine judges by the profile frozen in the
 * pinned version; docs/decisions/campaigns.md). The campaign starts in `draft`.
 */

import { now } from '../clock.js';
import { conflict, ValidationError, type ValidationIssue } from '../errors.js';
import { isId } from '../ids.js';
import { agentExists, latestPublishedVersion } from '../repositories/agents.js';
import { type CampaignRecord, newCampaign } from '../repositories/campaigns.js';
import { getList } from '../repositories/contact-lists.js';
import { getPool } from '../repositories/number-pools.js';
import { getPhoneNumber } from '../repositories/phone-numbers.js';
import { getTelephonyAccount } from '../repositories/telephony-accounts.js';
import type { CampaignCreateRequest } from '../schemas/campaigns.js';

const issue = (loc: (string | number)[], msg: string, type: string, input: unknown): ValidationIssue => ({ loc: ['body', ...loc], msg, type, input });

export async function buildCampaign(tenantId: string, body: CampaignCreateRequest): Promise<CampaignRecord> {
  const [version, list, pool, account] = await Promise.all([
    isId(body.agent_id) ? latestPublishedVersion(tenantId, body.agent_id) : undefined,
    isId(body.target.contact_list_id) ? getList(tenantId, body.target.contact_list_id) : undefined,
    getPool(tenantId, body.number_pool_id),
    isId(body.telephony_account_id) ? getTelephonyAccount(tenantId, body.telephony_account_id) : undefined,
  ]);
  const issues: ValidationIssue[] = [];
  const agentKnown = version !== undefined || (isId(body.agent_id) && (await agentExists(tenantId, body.agent_id)));
  if (!agentKnown) issues.push(issue(['agent_id'], 'No such agent in this tenant', 'value_error', body.agent_id));
  if (!list) issues.push(issue(['target', 'contact_list_id'], 'No such contact list in this tenant', 'value_error', body.target.contact_list_id));
  if (!pool) issues.push(issue(['number_pool_id'], 'No such number pool in this tenant', 'value_error', body.number_pool_id));
  if (!account) issues.push(issue(['telephony_account_id'], 'No such telephony account in this tenant', 'value_error', body.telephony_account_id));
  if (pool && account) {
    const numbers = await Promise.all(pool.phone_number_ids.map((id) => getPhoneNumber(tenantId, id)));
    if (numbers.some((n) => !n || n.telephony_account_id !== account.id))
      issues.push(issue(['number_pool_id'], "Every pool number must be on the campaign's telephony account", 'pool_account_mismatch', body.number_pool_id));
  }
  const agentProfile = version?.compliance_profile?.id ?? null;
  if (body.compliance_profile_id !== undefined && version && body.compliance_profile_id !== agentProfile) {
    issues.push(
      issue(
        ['compliance_profile_id'],
        "The compliance profile must be the agent's (the one frozen in its published version)",
        'compliance_profile_mismatch',
        body.compliance_profile_id,
      ),
    );
  }
  if (issues.length > 0) throw new ValidationError(issues);
  if (!version) throw conflict('agent_not_published', 'The agent has no published version: publish it before creating a campaign');
  return newCampaign(
    tenantId,
    {
      name: body.name,
      agent_definition_id: body.agent_id,
      target: { contact_list_id: body.target.contact_list_id },
      number_pool_id: body.number_pool_id,
      telephony_account_id: body.telephony_account_id,
      compliance_profile_id: body.compliance_profile_id ?? agentProfile,
      max_attempts_per_contact: body.max_attempts_per_contact,
      concurrency_cap: body.concurrency_cap,
      retry_after_minutes: body.retry_after_minutes,
    },
    now(),
  );
}

import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { NUMBER_CAPABILITIES, NUMBER_STATUSES } from '../../shared/policy/telephony-states.js';
import { listPhoneNumbers } from '../../shared/repositories/phone-numbers.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { phoneNumberSummary } from '../../shared/schemas/phone-numbers.js';

/** GET /v1/phone-numbers — newest first; `capabilities=sms` matches numbers that have sms. */
export const handler = defineListRoute(
  'listPhoneNumbers',
  bearer,
  {
    query: pageQuery,
    filters: {
      status: { kind: 'enum', values: NUMBER_STATUSES },
      capabilities: { kind: 'enum', values: NUMBER_CAPABILITIES, list: true },
      telephony_account_id: { kind: 'string', pattern: /^tac_[0-9A-HJKMNP-TV-Z]{26}$/ },
    },
    responses: { 200: cursorPage(phoneNumberSummary) },
  },
  async ({ principal, query, filters }) => ok(await listPhoneNumbers(principal.tenantId, { ...query, filters }, now())),
);

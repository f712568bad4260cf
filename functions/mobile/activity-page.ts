import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { activityPage } from '../../shared/repositories/mobile-activity.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { mobileActivity } from '../../shared/schemas/mobile.js';

/**
 * GET /v1/mobile/receptionist/activity/page (the contract) — the merged timeline (live_call,
 * voicemail, handoff, message), newest first, privacy-minimized. The cursor is the last
 * item's key (keyset): activity that arrives while a client pages never duplicates or skips
 * an older item.
 */
export const handler = defineRoute(
  'mobileActivityPage',
  bearer,
  { query: pageQuery, responses: { 200: cursorPage(mobileActivity) } },
  async ({ principal, query }) => ok(await activityPage(principal.tenantId, query)),
);

/** GET /v1/calls as a service: the store's page of call records, presented as call details with their qualifications. */
import type { FilterCondition } from '../pagination/filters.js';
import type { Page } from '../pagination/page.js';
import { listCallRecords } from '../repositories/calls.js';
import { callQualifications } from '../repositories/workflow-outcomes.js';
import type { CallDetail } from '../schemas/call-detail.js';
import { presentCall, withQualifications } from './present-call.js';

export async function listCallDetails(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }): Promise<Page<CallDetail>> {
  const page = await listCallRecords(tenantId, opts);
  const data = await Promise.all(
    page.data.map(async (item) => {
      const call = presentCall(item as unknown as Parameters<typeof presentCall>[0]);
      // Only calls that recorded a qualification have outcomes to read (one Query each).
      return call.conversation_actions.some((a) => a.kind === 'record_qualification')
        ? withQualifications(call, await callQualifications(tenantId, call.id))
        : call;
    }),
  );
  return { ...page, data };
}

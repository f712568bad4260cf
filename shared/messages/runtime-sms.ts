/**
 * The voice runtime's `send_sms` tool (a `conversation_action` event of kind send_sms): the
 * agent texts the contact it is talking to, through the same path as POST /v1/messages
 * (shared/messages/send-message.ts) with `origin_call_id` set, judged under the compliance
 * profile frozen in the call's pinned agent version, sent from the call's number when it can.
 *
 * Arguments: `{body}` or `{template_id, variables}` (checked before the batch is stored:
 * 422 otherwise), and only when the pinned version's tools include `send_sms` (422
 * `tool_not_granted` at the event's `kind` otherwise, nothing stored or sent). Once per action: the message commits with a guard item in the call's
 * partition (`SMS_ACTION#<action_id>`, put if absent), so a resent batch sends nothing again.
 * A call with no contact (an inbound caller no contact holds) sends nothing.
 */
import { profileFactsOf } from '../calls/compliance-inputs.js';
import { tableName } from '../db/client.js';
import { messageKeys } from '../db/keys.js';
import { logger } from '../observability.js';
import { getAgentVersion } from '../repositories/agents.js';
import { getCall } from '../repositories/calls.js';
import { phoneHolder } from '../repositories/suppressions.js';
import type { RuntimeEvent } from '../schemas/runtime-events.js';
import { AlreadySent, sendMessage, UnknownContact } from './send-message.js';
import { smsActionText } from './sms-action.js';

type Action = Extract<RuntimeEvent, { type: 'conversation_action' }>;

export const isSmsAction = (e: RuntimeEvent): e is Action => e.type === 'conversation_action' && e.kind === 'send_sms';

/** Whether the pinned version's tools (its template's tool_grants, frozen in the definition) include send_sms. */
export const smsGranted = (version: { definition: { tools: readonly string[] } } | undefined): boolean =>
  Boolean(version?.definition.tools.includes('send_sms'));

/** Sends each send_sms action of the batch that was not sent before (none when the version has no send_sms tool). */
export async function sendSmsActions(tenantId: string, callId: string, agentVersionId: string, events: readonly RuntimeEvent[], at: Date): Promise<void> {
  const actions = events.filter(isSmsAction);
  if (actions.length === 0) return;
  const [call, version] = await Promise.all([getCall(tenantId, callId), getAgentVersion(tenantId, agentVersionId)]);
  if (!call || !version || !smsGranted(version)) return;
  const outbound = call as { contact_id?: string };
  const contactId = outbound.contact_id ?? (await phoneHolder(tenantId, call.direction === 'inbound' ? call.from_e164 : call.to_e164))?.contactId;
  if (!contactId) {
    logger.info('send_sms on a call with no contact: nothing sent', { call_id: callId });
    return;
  }
  for (const action of actions) {
    const text = smsActionText(action.arguments ?? {});
    if ('issue' in text) continue; // refused before the batch was stored
    try {
      await sendMessage(
        tenantId,
        {
          contactId,
          profile: profileFactsOf(version),
          profileId: version.compliance_profile?.id ?? null,
          body: text.body,
          templateId: text.templateId,
          originCallId: callId,
          preferredNumberId: call.phone_number_id,
          extraItems: () => [
            {
              Put: {
                TableName: tableName(),
                Item: { ...messageKeys.callAction(tenantId, callId, action.action_id), type: 'sms_action' },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        },
        at,
      );
    } catch (err) {
      if (!(err instanceof AlreadySent) && !(err instanceof UnknownContact)) throw err;
    }
  }
}

import { now } from '../../shared/clock.js';
import { invalid } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { sendMessage, UnknownContact } from '../../shared/messages/send-message.js';
import { messageTemplate, renderTemplate } from '../../shared/policy/messages/sms-templates.js';
import { getProfile } from '../../shared/repositories/compliance-profiles.js';
import { messageCreateRequest, messageSummary } from '../../shared/schemas/text-messages.js';

/**
 * POST /v1/messages — send a text to a contact (beyond the spec; Idempotency-Key required).
 * Judged now for the sms channel under the named compliance profile; the message, its
 * decision, its event and the idempotency result are one transaction. 201 with the message
 * as committed: `queued` (then handed to the carrier once; sent/delivered/failed follow by
 * its signed callbacks) or `failed` with `failure` (blocked, deferred, no sendable number:
 * never sent). Unknown contact, profile or template variables → 422.
 */
export const handler = defineRoute(
  'createMessage',
  bearer,
  { body: messageCreateRequest, responses: { 201: messageSummary } },
  async ({ principal, body, idempotency }) => {
    const profile = await getProfile(principal.tenantId, body.compliance_profile_id, true);
    if (!profile) throw invalid(['body', 'compliance_profile_id'], 'No such compliance profile in this tenant', 'value_error', body.compliance_profile_id);
    let text = body.body;
    if (body.template_id !== undefined) {
      const rendered = renderTemplate(messageTemplate(body.template_id)!, body.variables ?? {});
      if ('problems' in rendered) {
        const p = rendered.problems[0]!;
        throw invalid(
          ['body', 'variables', p.variable],
          p.problem === 'missing' ? 'Field required by the template' : 'The template has no such variable',
          p.problem === 'missing' ? 'missing' : 'extra_forbidden',
        );
      }
      text = rendered.body;
    }
    try {
      const message = await sendMessage(
        principal.tenantId,
        {
          contactId: body.contact_id,
          profile: { call_purpose: profile.call_purpose, subject: profile.subject, seller_name: profile.seller_name, calling_window: profile.calling_window },
          profileId: profile.id,
          body: text!,
          templateId: body.template_id ?? null,
          originCallId: null,
          extraItems: (m) => (idempotency ? [idempotency.commitItem(created(m))] : []),
        },
        now(),
      );
      return { ...created(message), idempotencyCommitted: Boolean(idempotency) };
    } catch (err) {
      if (err instanceof UnknownContact) throw invalid(['body', 'contact_id'], 'No such contact in this tenant', 'value_error', body.contact_id);
      throw err;
    }
  },
);

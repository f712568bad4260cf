import { twilioCallForm, twimlDocument } from '../../shared/carrier/schemas.js';
import { twimlOk } from '../../shared/carrier/twiml-response.js';
import { now } from '../../shared/clock.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { appendInboundPath, getCall } from '../../shared/repositories/calls.js';
import { activityItem } from '../../shared/repositories/mobile-activity.js';
import { authenticateCarrierRequest } from '../../shared/telephony/carrier-request.js';
import { hangup, say, twiml } from '../../shared/telephony/twiml.js';

/**
 * POST /carrier/twilio/recording — the caller left a voicemail: its URL and length are kept
 * on the call (once, however often the carrier retries), and the caller is thanked.
 */
export const handler = defineRoute(
  'carrierRecording',
  handlerChecked,
  { body: twilioCallForm, successMediaType: 'text/xml', responses: { 200: twimlDocument } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'to');
    const call = caller.callId ? await getCall(caller.tenantId, caller.callId) : undefined;
    if (call && body?.RecordingUrl) {
      const seconds = Number(body.RecordingDuration);
      const at = now();
      await appendInboundPath(
        call,
        'recording',
        [{ action: 'voicemail_recorded', recording_url: body.RecordingUrl, ...(Number.isFinite(seconds) ? { seconds } : {}) }],
        at,
        // The voicemail's timeline entry commits with the recording, once.
        { recording_url: body.RecordingUrl, items: [activityItem(call.tenant_id, { kind: 'voicemail', resource_id: call.id, label: 'voicemail' }, at)] },
      );
    }
    return twimlOk(twiml(say('Thank you. Goodbye.'), hangup()));
  },
);

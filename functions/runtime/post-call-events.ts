import { pinnedVersion } from '../../shared/calls/pinned-versions.js';
import { now } from '../../shared/clock.js';
import { invalid, ValidationError } from '../../shared/errors.js';
import { streamToken } from '../../shared/http/auth/stream-token.js';
import { defineRoute } from '../../shared/http/route.js';
import { isSmsAction, sendSmsActions, smsGranted } from '../../shared/messages/runtime-sms.js';
import { smsActionText } from '../../shared/messages/sms-action.js';
import {
  GPU_SECONDS_PER_CALL_SECOND,
  LATE_EVENT_WINDOW_SECONDS,
  MAX_CALL_SECONDS,
  USAGE_PER_MINUTE,
  USAGE_SLACK_SECONDS,
} from '../../shared/policy/call-state/runtime-window.js';
import { type OutcomeCheck, recordCallEvents } from '../../shared/repositories/runtime-events.js';
import {
  callEventsPath,
  eventConflictError,
  MAX_EVENTS_PER_CALL,
  MAX_EVENTS_PER_REQUEST,
  runtimeEventsRequest,
  runtimeEventsResponse,
} from '../../shared/schemas/runtime-events.js';

/**
 * POST /runtime/v1/calls/{call_id}/events — the voice runtime reports what happened on a call,
 * authenticated by the call's Stream token (Authorization: Bearer; the factory refuses any
 * other credential before this runs). A batch of 1–25 typed events, applied in order, all or
 * nothing, idempotent by event id; the call's aggregates, its state (answered →
 * in_conversation on the first turn) and an opt-out's suppression commit with the events.
 */
export const handler = defineRoute(
  'postCallEvents',
  streamToken,
  {
    path: callEventsPath,
    body: runtimeEventsRequest,
    responses: { 200: runtimeEventsResponse, 409: eventConflictError },
    description:
      `A batch of 1–${MAX_EVENTS_PER_REQUEST} events (one event is a batch of one), applied in order, all or nothing. ` +
      'Each event is idempotent by its `id`: a replay stores and counts nothing again and answers the same result; the same id with another body is 409 `event_id_reused`. ' +
      "The first `turn` moves an answered call to in_conversation. An `opt_out` suppresses the contact's number (source `call`) in the same transaction. " +
      `At most ${MAX_EVENTS_PER_CALL} events per call (422 \`too_many_events_for_call\`). A call that never reached a person takes no events (409 \`call_not_in_conversation\`); ` +
      `a completed call still takes late events (a runtime flushes after the hang-up) for ${LATE_EVENT_WINDOW_SECONDS} s after its end, which never change its state; after that window its token is spent (409 \`call_ended\`, nothing written). ` +
      "An `outcome` must match the pinned version's outcome_type (or be `none`); once the call is analysed its outcome is frozen: a later `outcome` is stored as an event and changes nothing. " +
      `Usage is bounded by the call: its running totals may reach audio_seconds ≤ the call's seconds + ${USAGE_SLACK_SECONDS} (gpu_seconds ${GPU_SECONDS_PER_CALL_SECOND}× that), and per started minute ${USAGE_PER_MINUTE.characters_spoken} characters_spoken, ${USAGE_PER_MINUTE.llm_input_tokens} llm_input_tokens, ${USAGE_PER_MINUTE.llm_output_tokens} llm_output_tokens (an ended call's seconds are the carrier's duration; while it lasts, ${MAX_CALL_SECONDS / 3600} h, the longest call); past it → 422 \`usage_exceeds_call\` at the field, nothing metered. ` +
      "A `conversation_action` of kind `send_sms` (arguments `{body}` or `{template_id, variables}`; only when the pinned version's tools include send_sms, else 422 `tool_not_granted` at its `kind`) texts the call's contact once, through the same compliance path as POST /v1/messages (origin_call_id = this call).",
  },
  async ({ path, body, stream }) => {
    // The pinned version and its outcome type are kept per instance by the version's immutable id (pinned-versions.ts).
    const checkOutcome: OutcomeCheck = async (event, index) => {
      if (event.outcome.outcome_type === 'none') return;
      const pinned = await pinnedVersion(stream.tenant_id, stream.agent_version_id);
      if (!pinned) return; // not reachable: stored as reported
      if (pinned.outcome_type !== event.outcome.outcome_type) {
        throw invalid(
          ['body', 'events', index, 'outcome', 'outcome_type'],
          `The pinned agent version records outcomes of type '${pinned.outcome_type}' (or 'none')`,
          'outcome_type_mismatch',
          event.outcome.outcome_type,
        );
      }
    };
    // send_sms only when the pinned version's tools grant it (its template's tool_grants), then well-formed arguments.
    const hasSms = body.events.some(isSmsAction);
    const granted = hasSms && smsGranted((await pinnedVersion(stream.tenant_id, stream.agent_version_id))?.version);
    const smsIssues = body.events.flatMap((e, i) => {
      if (!isSmsAction(e)) return [];
      if (!granted)
        return [
          {
            loc: ['body', 'events', i, 'kind'],
            msg: "The call's pinned agent version has no send_sms tool (its template's tool_grants do not include it)",
            type: 'tool_not_granted',
            input: e.kind,
          },
        ];
      const text = smsActionText(e.arguments ?? {});
      return 'issue' in text ? [{ ...text.issue, loc: ['body', 'events', i, ...text.issue.loc] }] : [];
    });
    if (smsIssues.length > 0) throw new ValidationError(smsIssues);
    const at = now();
    const recorded = await recordCallEvents(stream.tenant_id, path.call_id, body.events, at, checkOutcome);
    // send_sms: texted once per action, after the batch committed (shared/messages/runtime-sms.ts).
    await sendSmsActions(stream.tenant_id, path.call_id, stream.agent_version_id, body.events, at);
    return { status: 200, body: recorded };
  },
);

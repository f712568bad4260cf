/**
 * Plays one step of a sandbox SMS's delivery timeline: schedule the next, claim this one
 * (once only), post the signed status callback with Twilio's parameter names.
 */
import { logger } from '../observability.js';
import type { SandboxTimelineMessage } from '../schemas/queue-bodies.js';
import { getSandboxAccount, openSandboxAuthToken } from './accounts.js';
import { claimMessageStep, getSandboxMessage, type SandboxMessage } from './messages.js';
import { scheduleStep } from './timeline-queue.js';
import { signedCarrierRequest } from './verb-runner.js';
import { waitUntilDue } from './wait-until-due.js';

const statusParams = (m: SandboxMessage): Record<string, string> => ({
  AccountSid: m.account_sid,
  ApiVersion: '2010-04-01',
  MessageSid: m.sid,
  SmsSid: m.sid,
  MessageStatus: m.status,
  SmsStatus: m.status,
  From: m.from,
  To: m.to,
  ...(m.error_code !== null ? { ErrorCode: String(m.error_code) } : {}),
});

export async function playMessageStep(message: SandboxTimelineMessage): Promise<void> {
  const first = await getSandboxMessage(message.sid);
  const planned = first?.plan[message.step];
  if (!first || !planned || first.step > message.step) return;
  if (!(await waitUntilDue('message', message, planned.due_at))) return;

  const sms = await getSandboxMessage(message.sid);
  if (!sms || !sms.plan[message.step] || sms.step > message.step) return;
  if (sms.step < message.step) {
    await scheduleStep('message', sms.sid, message.step, Date.now() + 1000);
    return;
  }
  const next = sms.plan[sms.step + 1];
  if (next) await scheduleStep('message', sms.sid, sms.step + 1, next.due_at);
  const claimed = await claimMessageStep(sms, new Date().toISOString());
  if (!claimed?.status_callback) return;
  const account = await getSandboxAccount(claimed.account_sid);
  if (!account) return;
  try {
    const res = await signedCarrierRequest(await openSandboxAuthToken(account), { url: claimed.status_callback, params: statusParams(claimed) });
    if (res.status >= 400) logger.warn('sandbox message callback refused', { message_sid: claimed.sid, status: res.status });
  } catch (err) {
    logger.warn('sandbox message callback failed', { message_sid: claimed.sid, error: (err as Error).name });
  }
}

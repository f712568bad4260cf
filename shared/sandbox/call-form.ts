/**
 * Twilio's Calls create form, checked as Twilio checks it, with its error codes:
 * To 21201 missing / 21211 invalid; From 21213 missing / 21210 not a number of the account
 * (checked by the route); Url 21205; methods 21401; StatusCallback 21609;
 * StatusCallbackEvent 21626; MachineDetection and Timeout 20001 (the sandbox's choice).
 */
import * as z from 'zod';
import type { RouteResult } from '../http/responses.js';
import { NUMBER_E164 } from '../schemas/phone.js';
import { twilioError } from './accounts.js';
import { CALL_EVENTS, type CallEvent, type MachineDetection } from './timeline.js';

export interface CallForm {
  to: string;
  from: string;
  url: string;
  method: 'GET' | 'POST';
  statusCallback: string | null;
  statusCallbackMethod: 'GET' | 'POST';
  events: CallEvent[];
  machineDetection: MachineDetection;
  timeout: number;
}

const httpUrl = z.url({ protocol: /^https?$/ }).max(4000);
const validUrl = (v: string) => httpUrl.safeParse(v).success;

/** The last value sent for a name (Twilio reads single-valued parameters that way). */
const last = (pairs: [string, string][], name: string) => pairs.filter(([k]) => k === name).at(-1)?.[1];

const method = (v: string | undefined): 'GET' | 'POST' | undefined =>
  v === undefined || v === '' ? 'POST' : v.toUpperCase() === 'GET' ? 'GET' : v.toUpperCase() === 'POST' ? 'POST' : undefined;

export function readCallForm(pairs: [string, string][]): { form: CallForm } | { error: RouteResult } {
  const to = last(pairs, 'To');
  const from = last(pairs, 'From');
  const url = last(pairs, 'Url');
  if (!to) return { error: twilioError(400, 21201, "No 'To' number is specified") };
  if (!NUMBER_E164.test(to)) return { error: twilioError(400, 21211, `The 'To' number ${to.slice(0, 40)} is not a valid phone number.`) };
  if (!from) return { error: twilioError(400, 21213, "No 'From' number is specified") };
  if (!url) return { error: twilioError(400, 21205, 'Url parameter is required.') };
  if (!validUrl(url)) return { error: twilioError(400, 21205, `Url is not a valid URL: ${url.slice(0, 200)}`) };
  const urlMethod = method(last(pairs, 'Method'));
  const callbackMethod = method(last(pairs, 'StatusCallbackMethod'));
  if (!urlMethod || !callbackMethod) return { error: twilioError(400, 21401, 'Method is not valid: use GET or POST') };
  const statusCallback = last(pairs, 'StatusCallback') || null;
  if (statusCallback !== null && !validUrl(statusCallback))
    return { error: twilioError(400, 21609, `StatusCallback is not a valid URL: ${statusCallback.slice(0, 200)}`) };
  // Repeated, or space-separated in one value; none asked for means only the final one.
  const events = pairs.filter(([k]) => k === 'StatusCallbackEvent').flatMap(([, v]) => v.split(/\s+/).filter(Boolean));
  const unknown = events.find((e) => !(CALL_EVENTS as readonly string[]).includes(e));
  if (unknown !== undefined) return { error: twilioError(400, 21626, `Invalid StatusCallbackEvent: ${unknown.slice(0, 40)}`) };
  const md = last(pairs, 'MachineDetection');
  if (md !== undefined && md !== '' && md !== 'Enable' && md !== 'DetectMessageEnd')
    return { error: twilioError(400, 20001, 'MachineDetection must be Enable or DetectMessageEnd') };
  const timeoutText = last(pairs, 'Timeout');
  const timeout = timeoutText === undefined || timeoutText === '' ? 60 : /^\d{1,3}$/.test(timeoutText) ? Number(timeoutText) : NaN;
  if (!(timeout >= 1 && timeout <= 600)) return { error: twilioError(400, 20001, 'Timeout must be a whole number of seconds from 1 to 600') };
  return {
    form: {
      to,
      from,
      url,
      method: urlMethod,
      statusCallback,
      statusCallbackMethod: callbackMethod,
      events: [...new Set(events as CallEvent[])],
      machineDetection: md === 'Enable' || md === 'DetectMessageEnd' ? md : null,
      timeout,
    },
  };
}

/**
 * The sandbox carrier's numbers (Twilio's IncomingPhoneNumber resource). A number is held
 * by at most one sandbox account, as in the world; it remembers where its calls go
 * (voice_url, status_callback), which is what an inbound sandbox call follows.
 */
import { randomBytes } from 'node:crypto';
import {
  deleteSandboxNumberItem,
  putSandboxNumberItem,
  readSandboxNumber,
  sandboxNumberOfSid,
  setSandboxNumberRouting,
} from '../repositories/sandbox-numbers.js';
import { NUMBER_E164 } from '../schemas/phone.js';

export interface SandboxNumber {
  sid: string;
  account_sid: string;
  phone_number: string;
  friendly_name: string;
  voice_url: string | null;
  voice_method: string;
  status_callback: string | null;
  status_callback_method: string;
  /** Where an inbound text goes (Twilio's SmsUrl; see docs/decisions/messaging.md). Absent on numbers bought before. */
  sms_url?: string | null;
  sms_method?: string;
  created_at: string;
  updated_at: string;
}

export interface NumberRouting {
  voice_url?: string;
  voice_method?: string;
  status_callback?: string;
  status_callback_method?: string;
  sms_url?: string;
  sms_method?: string;
}

export class SandboxNumberTaken extends Error {}

const SID_PATTERN = /^PN[0-9a-f]{32}$/;

/** Twilio's friendly name for a NANP number: (415) 555-0100. */
export const friendlyName = (e164: string) => {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : e164;
};

export async function buySandboxNumber(accountSid: string, phoneE164: string, routing: NumberRouting): Promise<SandboxNumber> {
  const now = new Date().toISOString();
  const number: SandboxNumber = {
    sid: `PN${randomBytes(16).toString('hex')}`,
    account_sid: accountSid,
    phone_number: phoneE164,
    friendly_name: friendlyName(phoneE164),
    voice_url: routing.voice_url ?? null,
    voice_method: routing.voice_method ?? 'POST',
    status_callback: routing.status_callback ?? null,
    status_callback_method: routing.status_callback_method ?? 'POST',
    sms_url: routing.sms_url ?? null,
    sms_method: routing.sms_method ?? 'POST',
    created_at: now,
    updated_at: now,
  };
  if (!(await putSandboxNumberItem(number))) throw new SandboxNumberTaken(phoneE164);
  return number;
}

export async function getSandboxNumber(phoneE164: string): Promise<SandboxNumber | undefined> {
  if (!NUMBER_E164.test(phoneE164)) return undefined;
  return readSandboxNumber<SandboxNumber>(phoneE164);
}

/** The number with this SID if `accountSid` holds it (another account's number is not found, as on Twilio). */
export async function getSandboxNumberBySid(accountSid: string, sid: string): Promise<SandboxNumber | undefined> {
  if (!SID_PATTERN.test(sid)) return undefined;
  const e164 = await sandboxNumberOfSid(sid);
  const number = e164 ? await getSandboxNumber(e164) : undefined;
  return number?.account_sid === accountSid ? number : undefined;
}

/**
 * The number a `…/Accounts/{AccountSid}/IncomingPhoneNumbers/{Sid}.json` path names, for the
 * authenticated account; undefined (Twilio's 20404) for another account's, an unknown one or
 * a path without `.json`. The not-found body is `sandboxNumberNotFound(path)`.
 */
export async function sandboxNumberAtPath(accountSid: string, path: { account_sid: string; number_file: string }): Promise<SandboxNumber | undefined> {
  if (path.account_sid !== accountSid || !path.number_file.endsWith('.json')) return undefined;
  return getSandboxNumberBySid(accountSid, path.number_file.slice(0, -'.json'.length));
}

export const sandboxNumberNotFoundMessage = (path: { account_sid: string; number_file: string }): string =>
  `The requested resource /2010-04-01/Accounts/${path.account_sid.slice(0, 64)}/IncomingPhoneNumbers/${path.number_file.slice(0, 64)} was not found`;

export async function routeSandboxNumber(number: SandboxNumber, routing: NumberRouting): Promise<SandboxNumber> {
  const next: SandboxNumber = {
    ...number,
    ...Object.fromEntries(Object.entries(routing).filter(([, v]) => v !== undefined)),
    updated_at: new Date().toISOString(),
  };
  await setSandboxNumberRouting(number, {
    voice_url: next.voice_url,
    voice_method: next.voice_method,
    status_callback: next.status_callback,
    status_callback_method: next.status_callback_method,
    sms_url: next.sms_url ?? null,
    sms_method: next.sms_method ?? 'POST',
    updated_at: next.updated_at,
  });
  return next;
}

export const twilioDate = (iso: string) => new Date(iso).toUTCString().replace('GMT', '+0000');

/** Twilio's JSON shape of an IncomingPhoneNumber. */
export const presentSandboxNumber = (n: SandboxNumber) => ({
  sid: n.sid,
  account_sid: n.account_sid,
  phone_number: n.phone_number,
  friendly_name: n.friendly_name,
  voice_url: n.voice_url,
  voice_method: n.voice_method,
  status_callback: n.status_callback,
  status_callback_method: n.status_callback_method,
  sms_url: n.sms_url ?? null,
  sms_method: n.sms_method ?? 'POST',
  capabilities: { voice: true, sms: true, mms: false, fax: false },
  status: 'in-use',
  date_created: twilioDate(n.created_at),
  date_updated: twilioDate(n.updated_at),
  uri: `/2010-04-01/Accounts/${n.account_sid}/IncomingPhoneNumbers/${n.sid}.json`,
});

/** Release a number (Twilio's DELETE IncomingPhoneNumbers/{Sid}): the number and its SID pointer go; another account's number is untouched. */
export const releaseSandboxNumber = (number: SandboxNumber): Promise<void> => deleteSandboxNumberItem(number);

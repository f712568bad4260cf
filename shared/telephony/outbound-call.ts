/**
 * Which outbound call a carrier request is about. Dispatch gives the carrier URLs that name
 * the call (`?call_id=cal_…`, covered by the signature) because the carrier may call back
 * before the CallSid pointer is stored: the call is then found by that id, must belong to
 * the authenticated tenant and its telephony account, and the CallSid is linked to it
 * (idempotently). A CallSid we already know wins over the query.
 */

import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import { CALL_SID } from '../carrier/twiml-response.js';
import { now } from '../clock.js';
import { CallSidMismatch, linkCarrierCall } from '../repositories/call-lifecycle.js';
import { type CallRecord, getCall } from '../repositories/calls.js';
import { type CarrierCaller, forbiddenSignature } from './carrier-request.js';

/** The query of the carrier URLs dispatch hands out, as the OpenAPI document shows it. */
export const outboundCallQuery = z.object({
  call_id: z.string().optional().describe('The outbound call this callback is about (cal_…); covered by the carrier signature'),
});

/** The call id a carrier URL names, if any. */
export const callIdOfQuery = (event: Pick<APIGatewayProxyEventV2, 'queryStringParameters'>): string | undefined => {
  const id = event.queryStringParameters?.call_id;
  return typeof id === 'string' && /^cal_[0-9A-Za-z]{1,60}$/.test(id) ? id : undefined;
};

/** Prefer our own number (From) to find the account when the URL names an outbound call. */
export const preferFor = (event: Pick<APIGatewayProxyEventV2, 'queryStringParameters'>): 'from' | 'to' => (callIdOfQuery(event) ? 'from' : 'to');

export async function callOfRequest(
  caller: CarrierCaller,
  event: Pick<APIGatewayProxyEventV2, 'queryStringParameters'>,
  callSid: string | undefined,
): Promise<CallRecord | undefined> {
  if (caller.callId) return getCall(caller.tenantId, caller.callId);
  const id = callIdOfQuery(event);
  if (!id) return undefined;
  const call = await getCall(caller.tenantId, id);
  if (!call || call.direction !== 'outbound') return undefined;
  // The signature proved the account; the call must be one that account placed.
  if (call.telephony_account_id !== caller.account.id) throw forbiddenSignature();
  if (callSid && CALL_SID.test(callSid)) {
    try {
      await linkCarrierCall(call, callSid, now());
    } catch (err) {
      if (err instanceof CallSidMismatch) throw forbiddenSignature();
      throw err;
    }
    return (await getCall(caller.tenantId, id)) ?? call;
  }
  return call;
}

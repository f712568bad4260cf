import { ok, type RouteResult } from '../http/responses.js';
import { TWIML_CONTENT_TYPE } from '../telephony/twiml.js';

/** A carrier's call id: CA + 32 hex. */
export const CALL_SID = /^CA[0-9a-fA-F]{32}$/;

/** A 200 whose body is a TwiML document. */
export const twimlOk = (document: string): RouteResult<string> => ({ ...ok(document), headers: { 'content-type': TWIML_CONTENT_TYPE } });

/**
 * The sandbox carrier reads TwiML as Twilio does: a <Response> of verbs, run in order. Pure:
 * XML text in, a list of verbs out (xml-reader.ts, order preserved). Verbs it does not
 * know are kept as `unknown` so a player can report them instead of silently skipping.
 */
import { isElement, readXml, textOf, type XmlElement, XmlUnreadable } from './xml-reader.js';

export type Verb =
  | { verb: 'Say'; text: string }
  | { verb: 'Play'; url: string }
  | { verb: 'Pause'; length: number }
  | { verb: 'Gather'; action: string | null; timeout: number; numDigits: number; actionOnEmptyResult: boolean; children: Verb[] }
  | { verb: 'Dial'; action: string | null; timeout: number; numbers: string[] }
  /** <Connect action><ConversationRelay url> (relayUrl) or <Connect><Stream url> (streamUrl), with the noun's <Parameter>s. */
  | { verb: 'Connect'; action: string | null; relayUrl: string | null; streamUrl: string | null; parameters: Record<string, string> }
  | { verb: 'Record'; action: string | null; maxLength: number }
  | { verb: 'Redirect'; url: string }
  | { verb: 'Hangup' }
  | { verb: 'Reject'; reason: string }
  | { verb: 'unknown'; name: string };

type Node = XmlElement;

export class TwimlUnreadable extends Error {}

const nameOf = (n: Node) => n.name;
const childrenOf = (n: Node) => n.children.filter(isElement);
const attrs = (n: Node): Record<string, string | undefined> => n.attrs;
const num = (v: string | undefined, fallback: number) => (v !== undefined && Number.isFinite(Number(v)) ? Number(v) : fallback);

function toVerb(n: Node): Verb {
  const name = nameOf(n);
  const a = attrs(n);
  switch (name) {
    case 'Say':
      return { verb: 'Say', text: textOf(n) };
    case 'Play':
      return { verb: 'Play', url: textOf(n) };
    case 'Pause':
      return { verb: 'Pause', length: num(a.length, 1) };
    case 'Gather':
      return {
        verb: 'Gather',
        action: a.action ?? null,
        timeout: num(a.timeout, 5),
        numDigits: num(a.numDigits, 1),
        actionOnEmptyResult: a.actionOnEmptyResult === 'true',
        children: childrenOf(n).map(toVerb),
      };
    case 'Dial': {
      const numbers = childrenOf(n)
        .filter((c) => nameOf(c) === 'Number')
        .map(textOf);
      const bare = n.children.find((c): c is string => !isElement(c));
      return { verb: 'Dial', action: a.action ?? null, timeout: num(a.timeout, 30), numbers: numbers.length ? numbers : bare !== undefined ? [bare] : [] };
    }
    case 'Connect': {
      const noun = childrenOf(n).find((c) => ['ConversationRelay', 'Stream'].includes(nameOf(c)));
      const url = noun ? (attrs(noun).url ?? null) : null;
      const parameters = Object.fromEntries(
        (noun ? childrenOf(noun) : []).filter((c) => nameOf(c) === 'Parameter').map((p) => [attrs(p).name ?? '', attrs(p).value ?? '']),
      );
      const relay = noun !== undefined && nameOf(noun) === 'ConversationRelay';
      return { verb: 'Connect', action: a.action ?? null, relayUrl: relay ? url : null, streamUrl: relay ? null : url, parameters };
    }
    case 'Record':
      return { verb: 'Record', action: a.action ?? null, maxLength: num(a.maxLength, 3600) };
    case 'Redirect':
      return { verb: 'Redirect', url: textOf(n) };
    case 'Hangup':
      return { verb: 'Hangup' };
    case 'Reject':
      return { verb: 'Reject', reason: a.reason ?? 'rejected' };
    default:
      return { verb: 'unknown', name };
  }
}

/** The verbs of a TwiML document; TwimlUnreadable when it is not one. */
export function readTwiml(xml: string): Verb[] {
  let doc: Node[];
  try {
    doc = readXml(xml);
  } catch (err) {
    if (!(err instanceof XmlUnreadable)) throw err;
    throw new TwimlUnreadable(`not XML: ${err.message}`);
  }
  const response = doc.find((n) => nameOf(n) === 'Response');
  if (!response) throw new TwimlUnreadable('no <Response> element');
  return childrenOf(response).map(toVerb);
}

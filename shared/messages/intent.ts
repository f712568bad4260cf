/**
 * What an inbound text asks for (see docs/decisions/messaging.md). Pure.
 *
 *  - `stop`: the whole message, trimmed and in any case, is one of the carrier opt-out
 *    keywords (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT, OPT OUT) — or a
 *    longer message contains one of the FCC's revocation words (stop, quit, end, revoke,
 *    opt out, cancel, unsubscribe) as a word. FCC 24-24 makes a revocation by any reasonable
 *    means valid, and a number wrongly kept costs far more than one wrongly dropped, so
 *    "please stop texting me" is a stop (docs/decisions/messaging.md). A word is a run of letters:
 *    "stopwatch", "ending" and "weekend" contain no revocation word; "STOP!" and "stop." do.
 *  - `help`: the whole message is HELP or INFO.
 *  - `start`: the whole message is START or UNSTOP (which lifts an SMS-made suppression);
 *    stored as inbound_intent `other`, since the contract's intents are stop, help and other.
 *  - `other`: anything else.
 */
export type InboundIntent = 'stop' | 'help' | 'other';
export type Keyword = InboundIntent | 'start';

const STOP_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT', 'OPT OUT'] as const;
const HELP_KEYWORDS = ['HELP', 'INFO'] as const;
const START_KEYWORDS = ['START', 'UNSTOP'] as const;
/** FCC 24-24's revocation words, matched as words anywhere in a longer message. */
const REVOCATION_WORDS = ['stop', 'quit', 'end', 'revoke', 'opt out', 'cancel', 'unsubscribe'] as const;

/** Trimmed, upper-cased, inner whitespace collapsed ("opt   out" is OPT OUT). */
const normalise = (body: string): string => body.trim().replace(/\s+/g, ' ').toUpperCase();

/** The message's words: runs of letters, lower-cased. */
const words = (body: string): string[] => body.toLowerCase().match(/\p{L}+/gu) ?? [];

const containsRevocation = (body: string): boolean => {
  const w = words(body);
  return REVOCATION_WORDS.some((phrase) => {
    const parts = phrase.split(' ');
    return w.some((_, i) => parts.every((p, j) => w[i + j] === p));
  });
};

export function classifyKeyword(body: string): Keyword {
  const whole = normalise(body);
  if ((STOP_KEYWORDS as readonly string[]).includes(whole)) return 'stop';
  if ((HELP_KEYWORDS as readonly string[]).includes(whole)) return 'help';
  if ((START_KEYWORDS as readonly string[]).includes(whole)) return 'start';
  if (containsRevocation(body)) return 'stop';
  return 'other';
}

/** The stored inbound_intent of a keyword (START is recorded as `other`; its lift is on the suppression entry). */
export const intentOf = (k: Keyword): InboundIntent => (k === 'start' ? 'other' : k);

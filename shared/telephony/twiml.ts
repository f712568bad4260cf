/**
 * The TwiML the carrier-facing routes answer with: the verbs the call path uses and no
 * more. Hand-written rather than twilio's VoiceResponse, which with xmlbuilder adds 78 KB
 * to a bundle for what is ~80 lines here; the unit test checks this output byte for byte
 * against VoiceResponse for the same documents. Escaping follows xmlbuilder's (text: & < >
 * CR; attributes: & < " TAB LF CR); characters XML 1.0 cannot carry at all (other control
 * characters, U+FFFE/U+FFFF, lone surrogates) are dropped, since one would make the whole
 * document unreadable to the carrier.
 */

type AttrValue = string | number | boolean | undefined;

export interface TwimlNode {
  readonly name: string;
  readonly attrs: Readonly<Record<string, AttrValue>>;
  readonly children: readonly (TwimlNode | string)[];
}

const node = (name: string, attrs: Record<string, AttrValue> = {}, children: (TwimlNode | string)[] = []): TwimlNode => ({ name, attrs, children });

const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const clean = (s: string) => s.replace(NOT_XML, '');
const escapeText = (s: string) => clean(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
const escapeAttr = (s: string) =>
  clean(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;').replace(/\r/g, '&#xD;');

function render(n: TwimlNode | string): string {
  if (typeof n === 'string') return escapeText(n);
  const attrs = Object.entries(n.attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`)
    .join('');
  return n.children.length ? `<${n.name}${attrs}>${n.children.map(render).join('')}</${n.name}>` : `<${n.name}${attrs}/>`;
}

/** A complete TwiML document. */
export const twiml = (...verbs: TwimlNode[]): string => `<?xml version="1.0" encoding="UTF-8"?>${render(node('Response', {}, verbs))}`;

export const TWIML_CONTENT_TYPE = 'text/xml; charset=utf-8';

export interface SayOptions {
  voice?: string;
  language?: string;
}
export const say = (text: string, opts: SayOptions = {}): TwimlNode => node('Say', { voice: opts.voice, language: opts.language }, [text]);

export const pause = (seconds: number): TwimlNode => node('Pause', { length: seconds });

/**
 * One DTMF key, posted to `action`. actionOnEmptyResult makes Twilio post even when the
 * caller pressed nothing, so a timeout reaches the same signed callback as a key press.
 */
export const gather = (opts: { action: string; timeoutSeconds: number; prompt: TwimlNode[] }): TwimlNode =>
  node('Gather', { input: 'dtmf', numDigits: 1, timeout: opts.timeoutSeconds, action: opts.action, method: 'POST', actionOnEmptyResult: true }, opts.prompt);

export interface RelayLanguage {
  code: string;
  voice: string;
  ttsProvider: string;
}

export interface ConversationRelayOptions {
  /** Where Twilio posts when the session ends (HandoffData, ErrorCode, …). */
  action: string;
  /** The runtime's WebSocket URL. */
  url: string;
  /** Said by Twilio as the session opens, before the runtime says anything; never interruptible. */
  welcomeGreeting: string;
  language: string;
  voice: string;
  ttsProvider: string;
  transcriptionProvider: string;
  speechModel: string;
  /** One <Language> per language the session may switch to. */
  languages: readonly RelayLanguage[];
  /** Custom parameters: they reach the runtime in the setup message's customParameters. */
  parameters: Record<string, string>;
}

/**
 * <Connect action><ConversationRelay>: Twilio transcribes the caller and speaks the runtime's
 * text over a WebSocket. The caller may talk over replies (interruptible any) but never over
 * the welcome greeting (the disclosure), and key presses reach the runtime (dtmfDetection).
 */
export const connectConversationRelay = (opts: ConversationRelayOptions): TwimlNode =>
  node('Connect', { action: opts.action, method: 'POST' }, [
    node(
      'ConversationRelay',
      {
        url: opts.url,
        welcomeGreeting: opts.welcomeGreeting,
        welcomeGreetingInterruptible: 'none',
        language: opts.language,
        voice: opts.voice,
        ttsProvider: opts.ttsProvider,
        transcriptionProvider: opts.transcriptionProvider,
        speechModel: opts.speechModel,
        interruptible: 'any',
        dtmfDetection: true,
      },
      [
        ...opts.languages.map((l) => node('Language', { code: l.code, voice: l.voice, ttsProvider: l.ttsProvider })),
        ...Object.entries(opts.parameters).map(([name, value]) => node('Parameter', { name, value })),
      ],
    ),
  ]);

/** Rings every number at once; the first to answer takes the call. Twilio posts the outcome to `action` (without one, the document goes on). */
export const dial = (opts: { numbers: string[]; timeoutSeconds: number; action?: string; callerId?: string }): TwimlNode =>
  node(
    'Dial',
    { timeout: opts.timeoutSeconds, action: opts.action, method: opts.action ? 'POST' : undefined, callerId: opts.callerId },
    opts.numbers.map((n) => node('Number', {}, [n])),
  );

export const record = (opts: { maxLengthSeconds: number; action: string; playBeep?: boolean }): TwimlNode =>
  node('Record', { maxLength: opts.maxLengthSeconds, action: opts.action, method: 'POST', playBeep: opts.playBeep });

export const redirect = (url: string): TwimlNode => node('Redirect', { method: 'POST' }, [url]);

export const hangup = (): TwimlNode => node('Hangup');

/** Refuses the call before it is answered (no charge to the caller); `busy` plays a busy tone. */
export const reject = (reason?: 'rejected' | 'busy'): TwimlNode => node('Reject', { reason });

/** Messaging TwiML: the reply text the carrier sends back to the sender of an inbound message. */
export const message = (text: string): TwimlNode => node('Message', {}, [text]);

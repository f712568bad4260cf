/**
 * The one seam between the local relay host and the conversation logic: the session factory
 * (`createRelaySession` of shared/voice/session.ts) and the reply model, each injectable
 * (tests pass their own). When a default is not in the tree, the host still authenticates
 * and holds sockets, and says so in its log.
 */
import { pathToFileURL } from 'node:url';
import type { VerifiedStreamClaims } from '../../shared/telephony/call-tokens.js';
import type { OutboundMessage } from '../../shared/voice/protocol.js';
import type { ControlPlane, ReplyModel } from '../../shared/voice/ports.js';
import { resolveModuleFile } from './paths.js';

export interface RelaySessionLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface RelaySessionDeps {
  verifyToken(token: string, at: Date): VerifiedStreamClaims | null | Promise<VerifiedStreamClaims | null>;
  controlPlaneFor(claims: VerifiedStreamClaims): ControlPlane;
  model: ReplyModel;
  send(message: OutboundMessage): void;
  close(code: number, reason: string): void;
  now(): Date;
  log: RelaySessionLog;
  firstTokenDeadlineMs?: number;
  fillerAfterMs?: number;
}

export interface RelaySession {
  receive(raw: string): Promise<void>;
  socketClosed(): Promise<void>;
  state(): unknown;
}

export type CreateRelaySession = (deps: RelaySessionDeps) => RelaySession;

/** The tree's session factory (shared/voice/session.ts), or undefined while it is not there. */
export async function defaultCreateRelaySession(): Promise<CreateRelaySession | undefined> {
  const file = resolveModuleFile('shared/voice/session');
  if (!file) return undefined;
  const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { createRelaySession?: CreateRelaySession };
  return typeof mod.createRelaySession === 'function' ? mod.createRelaySession : undefined;
}

/**
 * Until the sandbox reply model is wired in as the default, a model that answers every turn
 * with one fixed line, so `npm start` holds a call end to end without any provider key.
 */
export const placeholderReplyModel: ReplyModel = {
  async *stream() {
    yield { type: 'text', delta: 'Thanks, I have noted that.' };
    yield { type: 'finish', model: 'local-placeholder', usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 } };
  },
};

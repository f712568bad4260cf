/**
 * The one seam between the local relay host and the conversation logic: the session factory
 * (`createRelaySession` of shared/voice/session.ts) and the reply model, each injectable
 * (tests pass their own).
 */

import type { VerifiedStreamClaims } from '../../shared/telephony/call-tokens.js';
import { packRetrieval } from '../../shared/voice/control-plane.js';
import type { ControlPlane, ReplyModel } from '../../shared/voice/ports.js';
import { compileSystemPrompt } from '../../shared/voice/prompt.js';
import type { OutboundMessage } from '../../shared/voice/protocol.js';
import { createRelaySession } from '../../shared/voice/session.js';
import { grantedTools } from '../../shared/voice/tools.js';

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

/**
 * The session factory `npm start` serves: the conversation driver with the pinned version's
 * granted tools and its compiled system prompt.
 */
export const defaultCreateRelaySession: CreateRelaySession = (deps) =>
  createRelaySession({ ...deps, buildTools: grantedTools, systemPrompt: compileSystemPrompt, retrieveFor: packRetrieval });

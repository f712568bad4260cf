/**
 * The voice runtime's local host: Twilio ConversationRelay's WebSocket, served on the API's
 * own port at /runtime/v1/relay?token=<Stream token> (the same path the AWS WebSocket API
 * serves). The upgrade is authenticated before any socket exists (shared/voice/relay-admission.ts:
 * 401/403 on the upgrade, nothing written); any other upgrade path is refused with 404.
 * One live socket per call: a second one for the same call is accepted and closed 1008, a
 * reconnect after the first closed is served. Each socket runs one relay session; frames
 * are handed over as they arrive (the session orders its own turns, so an interrupt is not
 * queued behind the reply it interrupts).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { now } from '../../shared/clock.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { verifyStreamToken } from '../../shared/telephony/call-tokens.js';
import { VOICE_RUNTIME_RELAY_PATH } from '../../shared/telephony/endpoints.js';
import { TWILIO_SIGNATURE_HEADER } from '../../shared/telephony/twilio-signature.js';
import { createControlPlane } from '../../shared/voice/control-plane.js';
import type { ReplyModel } from '../../shared/voice/ports.js';
import { parseInbound } from '../../shared/voice/protocol.js';
import { admitRelayConnection, type RelayAdmission } from '../../shared/voice/relay-admission.js';
import type { VoiceRuntimeSettings } from '../../shared/voice/runtime-settings.js';
import { splitUrl } from './apigw-event.js';
import type { CreateRelaySession, RelaySessionLog } from './relay-session.js';

/** Close codes: 1008 policy (a second socket, a setup token that is not the URL's), 1011 no session logic. */
export const RELAY_CLOSE = { policy: 1008, unavailable: 1011 } as const;
/** ConversationRelay frames are small JSON texts; anything larger is not Twilio's. */
const MAX_FRAME_BYTES = 256 * 1024;

export interface RelayServerOptions {
  /** undefined: the session logic is not in the tree; sockets are authenticated, then closed 1011. */
  createSession: CreateRelaySession | undefined;
  model: ReplyModel;
  settings: VoiceRuntimeSettings;
  log: (line: string) => void;
}

export interface RelayServer {
  /** The calls that have a live socket now. */
  liveCalls(): string[];
  close(): Promise<void>;
}

export function attachRelayServer(server: Server, opts: RelayServerOptions): RelayServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const live = new Map<string, WebSocket>();
  const sessions = new Set<Promise<void>>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
    if (rawPath !== VOICE_RUNTIME_RELAY_PATH) return refuse(socket, 404);
    const signature = req.headers[TWILIO_SIGNATURE_HEADER];
    admitRelayConnection({ rawQuery: rawQueryString, signature: Array.isArray(signature) ? signature[0] : signature, at: now() }).then(
      (admission) => {
        if (!admission.ok) {
          opts.log(`relay: upgrade refused ${admission.status} (${admission.reason})`);
          return refuse(socket, admission.status);
        }
        wss.handleUpgrade(req, socket, head, (ws) => serve(ws, admission));
      },
      (err: unknown) => {
        opts.log(`relay: upgrade failed: ${(err as Error)?.stack ?? err}`);
        refuse(socket, 500);
      },
    );
  };

  function serve(ws: WebSocket, admission: Extract<RelayAdmission, { ok: true }>): void {
    const { claims, token } = admission;
    const callId = claims.call_id;
    if (live.has(callId)) {
      opts.log(`relay: call ${callId} already has a live socket; refused`);
      ws.close(RELAY_CLOSE.policy, 'call already has a live relay socket');
      return;
    }
    if (!opts.createSession) {
      opts.log('relay: no session logic in this tree (shared/voice/session.ts); socket closed');
      ws.close(RELAY_CLOSE.unavailable, 'voice session unavailable');
      return;
    }
    live.set(callId, ws);
    const log = sessionLog(opts.log, callId);
    const session = opts.createSession({
      // Only the URL's token is this socket's: a setup carrying another is refused below.
      verifyToken: async (given, at) => {
        if (given !== token) return null;
        const checked = verifyStreamToken(await callTokenKey(), given, at);
        return checked.ok ? checked.claims : null;
      },
      controlPlaneFor: () => createControlPlane({ token }),
      model: opts.model,
      send: (message) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
      },
      close: (code, reason) => ws.close(code, reason),
      now,
      log,
      firstTokenDeadlineMs: opts.settings.firstTokenDeadlineMs,
      fillerAfterMs: opts.settings.fillerAfterMs,
    });

    ws.on('message', (data, isBinary) => {
      if (isBinary) return log.warn('binary frame ignored');
      const raw = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
      const parsed = parseInbound(raw);
      if (parsed.ok && parsed.message.type === 'setup' && parsed.message.customParameters.token !== token) {
        log.warn('setup token is not the URL token; socket closed');
        return ws.close(RELAY_CLOSE.policy, 'setup token does not match');
      }
      session.receive(raw).catch((err: unknown) => log.error('session failed on a frame', { error: (err as Error)?.message ?? String(err) }));
    });
    ws.on('error', (err) => log.warn('socket error', { error: err.message }));
    ws.once('close', () => {
      if (live.get(callId) === ws) live.delete(callId);
      const closing = session.socketClosed().catch((err: unknown) => log.error('session failed to close', { error: (err as Error)?.message ?? String(err) }));
      sessions.add(closing);
      void closing.finally(() => sessions.delete(closing));
    });
  }

  server.on('upgrade', onUpgrade);
  return {
    liveCalls: () => [...live.keys()],
    close: async () => {
      server.off('upgrade', onUpgrade);
      for (const ws of live.values()) ws.close(1001, 'server stopping');
      await Promise.all(sessions);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function refuse(socket: Duplex, status: number): void {
  const text = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error' }[status] ?? 'Error';
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  else socket.destroy();
}

/** Log lines name the call, never the token or a number. */
function sessionLog(log: (line: string) => void, callId: string): RelaySessionLog {
  const line = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    log(`relay ${level} call ${callId}: ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}`);
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

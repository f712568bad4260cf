/** What the time-dependent (defer) rules need, gathered once so they can be re-asked at any instant. */

import { type LocalClock, localClock } from '../../time-zone.js';
import type { CallingWindow } from '../calling-window.js';
import type { CallPurpose } from './types.js';

export interface TimeContext {
  zones: readonly string[];
  states: readonly string[];
  purpose: CallPurpose | null;
  profileWindow: CallingWindow | null;
  /** Placement instants (ms, ascending) of earlier calls on the profile's subject. */
  sameSubjectAttempts: readonly number[];
  subject: string | null;
}

export interface ZoneClock extends LocalClock {
  zone: string;
}

export const clocksAt = (ctx: TimeContext, instantMs: number): ZoneClock[] => ctx.zones.map((zone) => ({ zone, ...localClock(zone, instantMs) }));

/** Windows include their start and exclude their end. */
export const within = (minute: number, start: number, end: number): boolean => minute >= start && minute < end;

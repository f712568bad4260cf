/**
 * What the unfinished-call reconciler does with a call the carrier took (its CallSid is
 * linked) and never reported the end of, once it is older than the bound (pure: the
 * carrier's answer and the instants in, the action out).
 *
 *   the carrier names a final status   → apply it through the status callback's own
 *                                        transitions (one final call.completed): the answer
 *                                        it implies first (a `completed` call that was up for
 *                                        some seconds, or had AnsweredBy, was answered), then
 *                                        the end, with the carrier's duration;
 *   the carrier says it is still live  → ask again later; past the hard bound → hang it up
 *                                        (best effort) and close it `carrier_unreported`;
 *   the carrier knows no such call     → close it `carrier_unreported` now (nobody can ever say);
 *   the carrier could not be asked     → ask again later; past the hard bound → close it.
 */

import { type CarrierCallState, FINAL_CARRIER_CALL_STATUSES } from './carrier-call.js';
import type { CarrierStatus } from './machine.js';

export type CarrierWord = ({ kind: 'status' } & CarrierCallState) | { kind: 'unknown' } | { kind: 'unavailable' };

export type UnfinishedAction =
  | { action: 'apply'; statuses: CarrierStatus[]; durationSeconds: number | null }
  | { action: 'recheck' }
  | { action: 'close'; hangUp: boolean };

export function decideUnfinished(word: CarrierWord, when: { linkedAt: string; at: Date; giveUpAfterMs: number }): UnfinishedAction {
  const pastHardBound = when.at.getTime() - Date.parse(when.linkedAt) >= when.giveUpAfterMs;
  if (word.kind === 'unknown') return { action: 'close', hangUp: false };
  if (word.kind === 'unavailable') return pastHardBound ? { action: 'close', hangUp: false } : { action: 'recheck' };
  if (!FINAL_CARRIER_CALL_STATUSES.includes(word.status)) return pastHardBound ? { action: 'close', hangUp: true } : { action: 'recheck' };
  const answeredBy = word.answeredBy ? { AnsweredBy: word.answeredBy } : {};
  const answered = word.status === 'completed' && ((word.durationSeconds ?? 0) > 0 || word.answeredBy !== null);
  const statuses: CarrierStatus[] = answered
    ? [
        { CallStatus: 'in-progress', ...answeredBy },
        { CallStatus: 'completed', ...answeredBy },
      ]
    : [{ CallStatus: word.status, ...answeredBy }];
  return { action: 'apply', statuses, durationSeconds: word.durationSeconds };
}

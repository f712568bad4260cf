/** A call as the carrier reports it (Twilio's Call resource): the statuses and the state read back (pure data). */

/** A call's status as the carrier reports it (Twilio's Call resource `status`). */
export const CARRIER_CALL_STATUSES = ['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled'] as const;
export type CarrierCallStatus = (typeof CARRIER_CALL_STATUSES)[number];
/** The statuses a call never leaves. */
export const FINAL_CARRIER_CALL_STATUSES: readonly CarrierCallStatus[] = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];

/** What the carrier says about one of the account's calls now. */
export interface CarrierCallState {
  status: CarrierCallStatus;
  /** Machine detection's verdict (`human`, `machine_start`, …), when it ran. */
  answeredBy: string | null;
  /** Whole seconds the call was up, once it ended. */
  durationSeconds: number | null;
}

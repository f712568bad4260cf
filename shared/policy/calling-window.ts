/**
 * A tenant's own calling window (compliance profile), as a pure module. It may only
 * narrow the legal window — 08:00 to 21:00 in the callee's local time (the TCPA's
 * 8 a.m.–9 p.m. rule) — never widen it.
 */
export const LEGAL_WINDOW = { start: '08:00', end: '21:00' } as const;

export const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export interface CallingWindow {
  start: string;
  end: string;
}

export type WindowProblem = { field: 'start' | 'end' | null; msg: string; type: string };

export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Problems with a well-formed window (HH:MM already checked), or an empty list. */
export function callingWindowProblems(w: CallingWindow): WindowProblem[] {
  const problems: WindowProblem[] = [];
  const start = minutesOf(w.start);
  const end = minutesOf(w.end);
  if (start < minutesOf(LEGAL_WINDOW.start)) {
    problems.push({ field: 'start', msg: `start may not be earlier than the legal window's ${LEGAL_WINDOW.start}`, type: 'calling_window_too_wide' });
  }
  if (end > minutesOf(LEGAL_WINDOW.end)) {
    problems.push({ field: 'end', msg: `end may not be later than the legal window's ${LEGAL_WINDOW.end}`, type: 'calling_window_too_wide' });
  }
  if (start >= end) problems.push({ field: null, msg: 'start must be earlier than end', type: 'calling_window_empty' });
  return problems;
}

/** Billing periods: calendar months in UTC, named `YYYY-MM`. Pure. */
export const PERIOD_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;

export const periodOf = (at: Date): string => at.toISOString().slice(0, 7);

export function periodBounds(period: string): { start: Date; end: Date } {
  const m = PERIOD_PATTERN.exec(period);
  if (!m) throw new Error(`invalid period ${period}`);
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  return { start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) };
}

/** The period before the one holding `at` (the one a close at `at` invoices). */
export function previousPeriod(at: Date): string {
  return periodOf(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1)));
}

/** Day of the month (01–31) of an instant, in UTC: the daily aggregate's attribute suffix. */
export const dayOf = (at: Date): string => at.toISOString().slice(8, 10);

/** Billing periods: calendar months in UTC, named `YYYY-MM`. Pure. */
export const PERIOD_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;

export const periodOf = (at: Date): string => at.toISOString().slice(0, 7);

export function periodBounds(period: string): { start: Date; end: Date } {
  const m = PERIOD_PATTERN.exec(period);
  if (!m) throw new Error(`invalid period ${period}`);
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  return { start: utcMonthStart(year, month), end: utcMonthStart(year, month + 1) };
}

/**
 * The first instant of a UTC month. Built with setUTCFullYear: Date.UTC maps years 0–99 to
 * 1900–1999, so `0050-01` would otherwise have 1950's bounds. `month` may overflow (12 → next January).
 */
function utcMonthStart(year: number, month: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 1);
  d.setUTCHours(0, 0, 0, 0);
  return d;
}

/** The period before the one holding `at` (the one a close at `at` invoices). */
export function previousPeriod(at: Date): string {
  return periodOf(utcMonthStart(at.getUTCFullYear(), at.getUTCMonth() - 1));
}

/** Day of the month (01–31) of an instant, in UTC: the daily aggregate's attribute suffix. */
export const dayOf = (at: Date): string => at.toISOString().slice(8, 10);

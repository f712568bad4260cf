/**
 * Which keys a judgement's point reads (readCallPointFacts) will name, guessed from the last
 * judgement this warm instance made for the same contact (its number) and tenant (its
 * numbers' accounts), so a route can read them with the credential, before the contact and
 * the numbers are known. Only keys are kept, never anything read: a guess is checked against
 * the contact and the numbers read in the same request, and a wrong one (a number changed, an
 * account added) costs the batch the request would have made anyway.
 */
import { RecentlyUsed } from '../recently-used.js';

export interface CallPointGuess {
  phone: string;
  accountIds: readonly string[];
}

const phones = new RecentlyUsed<string, string>(4096);
const accounts = new RecentlyUsed<string, readonly string[]>(256);

export function guessCallPoint(tenantId: string, contactId: string): CallPointGuess | undefined {
  const phone = phones.get(`${tenantId}|${contactId}`);
  const accountIds = accounts.get(tenantId);
  return phone === undefined || accountIds === undefined ? undefined : { phone, accountIds };
}

export function rememberCallPoint(tenantId: string, contactId: string, point: CallPointGuess): void {
  phones.set(`${tenantId}|${contactId}`, point.phone);
  accounts.set(tenantId, point.accountIds);
}

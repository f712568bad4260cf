/**
 * The E.164 patterns, in one place. Both are "+, a first digit 1–9, then digits", but the
 * interface itself draws two lengths: a contact's number (and anything that names a person
 * to call or to suppress) may have 6 to 14 digits after the first, while a number the
 * platform owns or buys — a carrier line — has 7 to 14. Both are kept as the interface
 * states them rather than merged, because merging would either refuse contacts the
 * interface accepts or accept carrier numbers it refuses.
 */
import * as z from 'zod';

/** A contact's (or callee's, callback's, suppressed) number: 6 to 14 digits after the first. */
export const CONTACT_PHONE = /^\+[1-9]\d{6,14}$/;
/** A platform number (owned, bought, dialled from): 7 to 14 digits after the first. */
export const NUMBER_E164 = /^\+[1-9]\d{7,14}$/;

export const contactPhone = z.string().regex(CONTACT_PHONE, { message: 'Phone must be E.164: +, a first digit 1-9, then 6 to 14 digits' });
export const numberE164 = z.string().regex(NUMBER_E164, { message: 'A phone number must be E.164: +, a first digit 1-9, then 7 to 14 digits' });
/** A contact-pattern number under another field name, with that name in its message. */
export const contactPhoneNamed = (field: string) =>
  z.string().regex(CONTACT_PHONE, { message: `${field} must be E.164: +, a first digit 1-9, then 6 to 14 digits` });

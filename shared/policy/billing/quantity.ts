/**
 * Exact non-negative decimal quantities as strings, without a decimal library. The ledger only
 * checks, normalizes and adds quantities (rating multiplies them by prices, with decimal.js,
 * in rating.ts), so every function that meters usage (call status, texts, runtime events)
 * need not bundle decimal.js (~32 KB minified) for that. Sums are exact (BigInt).
 */

/** A plain or exponent decimal, as JSON numbers print and DynamoDB numbers read. */
const DECIMAL = /^\+?(\d*)(?:\.(\d*))?(?:e([+-]?\d{1,3}))?$/i;

/** value = digits / 10^scale */
interface Fixed {
  digits: bigint;
  scale: number;
}

function parse(q: string | number): Fixed | null {
  const text = typeof q === 'number' ? (Number.isFinite(q) ? String(q) : '') : q.trim();
  const m = DECIMAL.exec(text);
  const int = m?.[1] ?? '';
  const frac = m?.[2] ?? '';
  if (!m || `${int}${frac}` === '') return null;
  const scale = frac.length - Number(m[3] ?? 0);
  const digits = BigInt(`${int}${frac}`);
  return scale < 0 ? { digits: digits * 10n ** BigInt(-scale), scale: 0 } : { digits, scale };
}

function format({ digits, scale }: Fixed): string {
  if (digits === 0n) return '0';
  const s = digits.toString().padStart(scale + 1, '0');
  const int = s.slice(0, s.length - scale);
  const frac = s.slice(s.length - scale).replace(/0+$/, '');
  return frac ? `${int}.${frac}` : int;
}

/** `q` as the API shows quantities (no exponent, no leading or trailing zeros), or null when it is not a finite non-negative decimal. */
export function quantityString(q: string | number): string | null {
  const f = parse(q);
  return f ? format(f) : null;
}

/** The exact sum of quantities (each a finite non-negative decimal; anything else throws). */
export function addQuantities(...qs: readonly (string | number)[]): string {
  let sum: Fixed = { digits: 0n, scale: 0 };
  for (const q of qs) {
    const f = parse(q);
    if (!f) throw new Error(`not a quantity: ${String(q).slice(0, 40)}`);
    const scale = Math.max(sum.scale, f.scale);
    sum = { digits: sum.digits * 10n ** BigInt(scale - sum.scale) + f.digits * 10n ** BigInt(scale - f.scale), scale };
  }
  return format(sum);
}

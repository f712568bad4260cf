/**
 * BCP 47 language tags, checked by the platform's own Intl data
 * (`Intl.getCanonicalLocales` throws RangeError on a tag that is not well formed).
 */
export function canonicalLanguageTag(tag: string): string | undefined {
  if (tag.trim() !== tag || tag === '') return undefined;
  try {
    const out = Intl.getCanonicalLocales(tag);
    return out.length === 1 ? out[0] : undefined;
  } catch {
    return undefined;
  }
}

export const isLanguageTag = (tag: string): boolean => canonicalLanguageTag(tag) !== undefined;

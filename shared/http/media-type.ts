/**
 * Is a Content-Type header JSON? `application/json` or any `application/…+json` (RFC 6839),
 * case-insensitive, with no charset or charset utf-8 (RFC 8259 §8.1: JSON exchanged between
 * systems is UTF-8). Pure.
 */
export function isJsonMediaType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (!type || !/^application\/([a-z0-9!#$&^_.-]+\+)?json$/.test(type)) return false;
  for (const param of params) {
    const [name, value] = param.split('=').map((p) => p?.trim());
    if (name === 'charset' && value?.replace(/^"|"$/g, '') !== 'utf-8') return false;
  }
  return true;
}

/** Is a Content-Type header a URL-encoded form (what carriers post)? Charset utf-8 if given. */
export function isFormMediaType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/x-www-form-urlencoded') return false;
  return params.every((param) => {
    const [name, value] = param.split('=').map((p) => p?.trim());
    return name !== 'charset' || value?.replace(/^"|"$/g, '') === 'utf-8';
  });
}

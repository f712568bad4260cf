/**
 * Where a step sits in a policy, in two spellings:
 *   - a path, like a 422 loc without "body": ["open_steps", 0, "branches", "1", 0];
 *   - a compact string for signed Gather callback URLs: "open.0.b1.0" ("t" is a menu's
 *     timeout_branch; keys * and # are spelled "bstar" and "bhash" so the string needs no
 *     URL escaping).
 * A callback carries the compact form and the policy version; the handler resolves it
 * against that version, so a call continues on the policy it started with.
 */
import { type AnyStep, type DtmfKey, isDtmfKey, type MenuStepOf, type PolicyDocument } from './model.js';
import type { StepListName } from './schedule.js';

export type PolicyPath = (string | number)[];

const LIST_FIELD: Record<StepListName, 'open_steps' | 'closed_steps'> = { open: 'open_steps', closed: 'closed_steps' };
const KEY_SPELLING: Record<string, string> = { '*': 'star', '#': 'hash' };
const KEY_FROM_SPELLING: Record<string, DtmfKey> = { star: '*', hash: '#' };
const MAX_ENCODED_CHARS = 200;

export const listPath = (list: StepListName): PolicyPath => [LIST_FIELD[list], 0];

export function encodeStepPath(path: PolicyPath): string {
  const [field, index, ...rest] = path;
  const head = field === 'open_steps' ? 'open' : field === 'closed_steps' ? 'closed' : undefined;
  if (!head || !isIndex(index)) throw new Error(`not a step path: ${JSON.stringify(path)}`);
  const out: string[] = [head, String(index)];
  for (let i = 0; i < rest.length; ) {
    const [kind, a, b] = [rest[i], rest[i + 1], rest[i + 2]];
    if (kind === 'branches' && typeof a === 'string' && isDtmfKey(a) && isIndex(b)) {
      out.push(`b${KEY_SPELLING[a] ?? a}`, String(b));
      i += 3;
    } else if (kind === 'timeout_branch' && isIndex(a)) {
      out.push('t', String(a));
      i += 2;
    } else throw new Error(`not a step path: ${JSON.stringify(path)}`);
  }
  return out.join('.');
}

/** The path a compact string names, or null if it is not one (the input is from a URL). */
export function decodeStepPath(encoded: string): PolicyPath | null {
  if (encoded.length > MAX_ENCODED_CHARS) return null;
  const parts = encoded.split('.');
  if (parts.length % 2 !== 0) return null;
  const path: PolicyPath = [];
  for (let i = 0; i < parts.length; i += 2) {
    const [tag, idx] = [parts[i]!, parts[i + 1]!];
    if (!/^(0|[1-9]\d{0,2})$/.test(idx)) return null;
    const n = Number(idx);
    if (i === 0) {
      if (tag === 'open') path.push('open_steps', n);
      else if (tag === 'closed') path.push('closed_steps', n);
      else return null;
    } else if (tag === 't') path.push('timeout_branch', n);
    else if (/^b[0-9]$/.test(tag)) path.push('branches', tag.slice(1), n);
    else if (tag.startsWith('b') && KEY_FROM_SPELLING[tag.slice(1)]) path.push('branches', KEY_FROM_SPELLING[tag.slice(1)]!, n);
    else return null;
  }
  return path;
}

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isMenu = <S extends AnyStep>(s: S | undefined): s is Extract<S, MenuStepOf<S>> => s?.type === 'menu';

/** The list a step at `path` belongs to, the step's index in it, and the path of that list. */
function parentList<S extends AnyStep>(policy: PolicyDocument<S>, path: PolicyPath): { list: S[]; index: number; listPath: PolicyPath } | undefined {
  const index = path.at(-1);
  if (!isIndex(index)) return undefined;
  const listPathOnly = path.slice(0, -1);
  const [field, ...rest] = listPathOnly;
  let list: S[] | undefined = field === 'open_steps' ? policy.open_steps : field === 'closed_steps' ? (policy.closed_steps ?? []) : undefined;
  for (let i = 0; list && i < rest.length; ) {
    const step = isIndex(rest[i]) ? list[rest[i] as number] : undefined;
    if (!isMenu(step)) return undefined;
    if (rest[i + 1] === 'branches' && typeof rest[i + 2] === 'string' && isDtmfKey(rest[i + 2] as string)) {
      list = step.branches[rest[i + 2] as DtmfKey] as S[] | undefined;
      i += 3;
    } else if (rest[i + 1] === 'timeout_branch') {
      list = step.timeout_branch as S[];
      i += 2;
    } else return undefined;
  }
  return list ? { list, index, listPath: listPathOnly } : undefined;
}

/** The step at `path`, or undefined when the policy has none there. */
export function resolveStep<S extends AnyStep>(policy: PolicyDocument<S>, path: PolicyPath): S | undefined {
  const at = parentList(policy, path);
  return at?.list[at.index];
}

/**
 * The step that runs when the step at `path` finishes without ending the call (a
 * ring_humans nobody answered, or the last step of a menu branch): its next sibling, else
 * the step after the menu that branch belongs to, and so on outwards; null when the
 * top-level list is spent (the call ends).
 */
export function nextStepPath<S extends AnyStep>(policy: PolicyDocument<S>, path: PolicyPath): PolicyPath | null {
  let current = path;
  for (;;) {
    const at = parentList(policy, current);
    if (!at) return null;
    if (at.index + 1 < at.list.length) return [...at.listPath, at.index + 1];
    // The menu's own path is the branch list's path minus ("branches", key) or ("timeout_branch").
    const tail = at.listPath.at(-1) === 'timeout_branch' ? 1 : 2;
    if (at.listPath.length <= 1) return null;
    current = at.listPath.slice(0, -tail);
  }
}

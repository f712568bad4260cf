/**
 * What a parsed JSON request body may contain so that whatever the server keeps of it is
 * stored exactly or refused, never altered (pure module).
 *
 * Checked once for every body, before schema validation, so each route and each future
 * free-form object inherits the rule instead of re-implementing it:
 *  - a key `__proto__` cannot be an own property of the objects zod and the DynamoDB
 *    marshaller build (assigning it sets the prototype): the key would silently vanish;
 *  - a string (value or key) with a lone UTF-16 surrogate has no UTF-8 form: the SDK would
 *    store U+FFFD instead;
 *  - numbers must be finite, integers exact (|n| ≤ 2^53 − 1; the marshaller refuses others)
 *    and non-zero magnitudes at least 1e-130 (DynamoDB's smallest; its largest, 1e126, is
 *    beyond 2^53, and a double never carries more than DynamoDB's 38 significant digits).
 *  - nesting is at most MAX_JSON_DEPTH levels, checked on the text before it is parsed: a
 *    deeper body would cost JSON.parse seconds and overflow the stack of every recursive
 *    consumer after it (JSON.stringify, a schema, a fingerprint). The walks here are
 *    iterative, so no input can make them throw.
 * Free-form objects add their own rules (empty keys, depth, size): storableObject.
 */
import type { ValidationIssue } from '../errors.js';

/** DynamoDB's smallest non-zero magnitude. */
const MIN_NUMBER_MAGNITUDE = 1e-130;
/** At most this many problems are reported for one body (the rest would only repeat them). */
const MAX_ISSUES = 20;

/**
 * Deepest nesting of arrays and objects a JSON body may have. Far above any shape the API
 * takes (a free-form object nests at most 8 levels, a few levels into its body) and far
 * below what a recursive walk could not survive.
 */
const MAX_JSON_DEPTH = 64;

type Path = (string | number)[];

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The 422 issue for JSON text nesting deeper than `max` levels, found in one pass over the
 * text (brackets inside strings do not count) without parsing it; undefined otherwise. Text
 * that is not JSON at all is left for the parser to refuse.
 */
export function jsonTooDeep(text: string, max: number = MAX_JSON_DEPTH, root: Path = ['body']): ValidationIssue | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return { loc: root, msg: `JSON nesting deeper than ${max} levels`, type: 'json_too_deep', ctx: { max_depth: max } };
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return undefined;
}

export function numberProblem(n: number): { msg: string; type: string } | undefined {
  if (!Number.isFinite(n)) return { msg: 'numbers must be finite', type: 'finite_number' };
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return { msg: 'integers must be within ±(2^53 − 1) to be stored exactly', type: 'number_too_large' };
  if (n !== 0 && Math.abs(n) < MIN_NUMBER_MAGNITUDE) return { msg: 'numbers other than 0 must have a magnitude of at least 1e-130', type: 'number_too_small' };
  return undefined;
}

/**
 * Every place in a parsed JSON value that cannot be held exactly, as 422 issues under
 * `root`, in document order. Iterative (an explicit stack; a node's path is rebuilt only
 * when it is reported), so any depth is walked without exhausting the call stack.
 */
export function unholdableJson(value: unknown, root: Path = ['body']): ValidationIssue[] {
  // A key's own problem waits on the stack in its place among its siblings ('issue').
  interface ValueNode {
    value: unknown;
    parent?: ValueNode;
    key?: string | number;
  }
  type Node = ValueNode | { issue: ValidationIssue };
  const pathOf = (node: ValueNode, ...last: string[]): Path => {
    const steps: (string | number)[] = [];
    for (let n: ValueNode | undefined = node; n?.parent; n = n.parent) steps.push(n.key!);
    return [...root, ...steps.reverse(), ...last];
  };
  const issues: ValidationIssue[] = [];
  const stack: Node[] = [{ value }];
  while (stack.length && issues.length < MAX_ISSUES) {
    const node = stack.pop()!;
    if ('issue' in node) {
      issues.push(node.issue);
      continue;
    }
    const v = node.value;
    if (typeof v === 'number') {
      const p = numberProblem(v);
      if (p) issues.push({ loc: pathOf(node), ...p });
      continue;
    }
    if (typeof v === 'string') {
      if (!v.isWellFormed())
        issues.push({ loc: pathOf(node), msg: 'String contains a lone UTF-16 surrogate, which has no UTF-8 form', type: 'string_unicode' });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const children: Node[] = [];
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) children.push({ value: item, parent: node, key: i });
    } else {
      for (const key of Object.keys(v)) {
        if (key === '__proto__') children.push({ issue: { loc: pathOf(node, key), msg: "'__proto__' cannot be used as a key", type: 'key_reserved' } });
        else if (!key.isWellFormed())
          children.push({ issue: { loc: pathOf(node, key), msg: 'Key contains a lone UTF-16 surrogate, which has no UTF-8 form', type: 'key_unicode' } });
        else children.push({ value: (v as Record<string, unknown>)[key], parent: node, key });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return issues;
}

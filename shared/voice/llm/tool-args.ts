/**
 * Tool arguments the sandbox model builds the way a capable model would: from the tool's JSON
 * schema (what any model is shown) and the facts the conversation gave it. A property is
 * filled from the fact of the same name (or a close synonym); the result is checked against
 * the schema and, when it would not validate, the call is not made at all. Pure.
 */

/** The JSON Schema keywords tool input schemas use (providers' own type for it is untyped here). */
export interface JSONSchema7 {
  type?: string | string[];
  properties?: Record<string, JSONSchema7Definition>;
  required?: string[];
  additionalProperties?: JSONSchema7Definition;
  items?: JSONSchema7Definition | JSONSchema7Definition[];
  anyOf?: JSONSchema7Definition[];
  oneOf?: JSONSchema7Definition[];
  allOf?: JSONSchema7Definition[];
  not?: JSONSchema7Definition;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
}
export type JSONSchema7Definition = JSONSchema7 | boolean;

export type Facts = Readonly<Record<string, unknown>>;

/** Property names a fact may also go by (both directions are looked up). */
const SYNONYMS: Record<string, readonly string[]> = {
  answer: ['value', 'answer_text', 'response_text', 'label'],
  value: ['answer'],
  body: ['message', 'text', 'note'],
  message: ['body', 'text', 'note'],
  note: ['notes', 'reason', 'summary', 'details'],
  notes: ['note', 'reason', 'summary', 'details'],
  summary: ['note', 'notes'],
  reason: ['note', 'notes', 'details'],
  caller_name: ['name', 'contact_name'],
  name: ['caller_name'],
  callback_number: ['phone', 'phone_number', 'number'],
  phone: ['callback_number'],
  phone_number: ['callback_number'],
  start: ['starts_at', 'start_time'],
  starts_at: ['start', 'start_time', 'slot_start'],
  start_time: ['starts_at', 'start'],
  end: ['ends_at', 'end_time'],
  ends_at: ['end', 'end_time'],
  duration: ['duration_minutes'],
  duration_minutes: ['duration'],
  question_id: ['id', 'question'],
  requested_time: ['when', 'preferred_time'],
  when: ['requested_time', 'preferred_time'],
};

function lookup(facts: Facts, name: string): unknown {
  if (Object.hasOwn(facts, name)) return facts[name];
  for (const alias of SYNONYMS[name] ?? []) if (Object.hasOwn(facts, alias)) return facts[alias];
  return undefined;
}

const asSchema = (d: JSONSchema7Definition | undefined): JSONSchema7 => (typeof d === 'object' ? d : {});
const typesOf = (s: JSONSchema7): string[] => (s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]);

/** Arguments for a tool with this input schema from these facts, or undefined when none would validate. */
export function buildArgs(schema: JSONSchema7, facts: Facts): Record<string, unknown> | undefined {
  const value = fill(schema, facts);
  return value !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value) && validates(schema, value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function fill(schema: JSONSchema7, facts: Facts): unknown {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    for (const b of branches) {
      const v = fill(asSchema(b), facts);
      if (v !== undefined && validates(asSchema(b), v)) return v;
    }
    return undefined;
  }
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, def] of Object.entries(schema.properties ?? {})) {
    const prop = asSchema(def);
    const raw = lookup(facts, name);
    const v = raw === undefined ? undefined : coerce(prop, raw);
    if (v !== undefined) out[name] = v;
    else if (required.has(name)) {
      if (prop.default !== undefined) out[name] = prop.default;
      else if (prop.const !== undefined) out[name] = prop.const;
      // A required choice among ids the schema lists (a transfer target): the first offered.
      else if (name.endsWith('_id') && prop.enum?.length) out[name] = prop.enum[0];
      else return undefined;
    }
  }
  return out;
}

/** The fact as a value of this schema, or undefined when it cannot be one. */
function coerce(schema: JSONSchema7, raw: unknown): unknown {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    for (const b of branches) {
      const v = coerce(asSchema(b), raw);
      if (v !== undefined && validates(asSchema(b), v)) return v;
    }
    return undefined;
  }
  if (schema.enum) return pickEnum(schema.enum, raw);
  if (schema.const !== undefined) return schema.const === raw ? raw : undefined;
  const types = typesOf(schema);
  const want = (t: string) => types.length === 0 || types.includes(t);
  if (typeof raw === 'string' && want('string')) return raw;
  if (typeof raw === 'number' && (want('number') || (want('integer') && Number.isInteger(raw)))) return raw;
  if (typeof raw === 'number' && want('string')) return String(raw);
  if (typeof raw === 'string' && (types.includes('number') || types.includes('integer')) && /^-?\d+(\.\d+)?$/.test(raw.trim())) return Number(raw);
  if (typeof raw === 'boolean' && want('boolean')) return raw;
  if (raw && typeof raw === 'object' && types.includes('array')) {
    const items = asSchema(schema.items as JSONSchema7Definition | undefined);
    const list = Array.isArray(raw) ? raw : Object.entries(raw).map(([key, value]) => ({ question_id: key, id: key, key, answer: value, value }));
    const out = list.map((entry) =>
      entry && typeof entry === 'object' && !Array.isArray(entry) && typesOf(items).includes('object') ? fill(items, entry as Facts) : coerce(items, entry),
    );
    return out.every((v) => v !== undefined) ? out : undefined;
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && want('object')) {
    if (schema.properties) return fill(schema, raw as Facts);
    const values = asSchema(typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
      const c = coerce(values, v);
      if (c === undefined) return undefined;
      out[k] = c;
    }
    return out;
  }
  return undefined;
}

function pickEnum(options: readonly unknown[], raw: unknown): unknown {
  if (options.includes(raw)) return raw;
  if (typeof raw !== 'string') return undefined;
  const wanted = raw.toLowerCase();
  return options.find((o) => typeof o === 'string' && (o.toLowerCase() === wanted || o.toLowerCase().includes(wanted) || wanted.includes(o.toLowerCase())));
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A JSON Schema check for the keywords tool schemas use; unknown keywords pass. */
export function validates(schema: JSONSchema7Definition, value: unknown): boolean {
  if (schema === true) return true;
  if (schema === false) return false;
  if (schema.anyOf && !schema.anyOf.some((b) => validates(b, value))) return false;
  if (schema.oneOf && schema.oneOf.filter((b) => validates(b, value)).length !== 1) return false;
  if (schema.allOf && !schema.allOf.every((b) => validates(b, value))) return false;
  if (schema.not !== undefined && validates(schema.not, value)) return false;
  if (schema.enum && !schema.enum.some((e) => e === value)) return false;
  if (schema.const !== undefined && schema.const !== value) return false;
  const types = typesOf(schema);
  if (types.length && !types.some((t) => isType(t, value))) return false;
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) return false;
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) return false;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return false;
    if (schema.format === 'date' && !DATE.test(value)) return false;
    if (schema.format === 'date-time' && !DATE_TIME.test(value)) return false;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return false;
    if (schema.maximum !== undefined && value > schema.maximum) return false;
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return false;
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return false;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return false;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return false;
    if (schema.items !== undefined && !Array.isArray(schema.items) && !value.every((v) => validates(schema.items as JSONSchema7Definition, v))) return false;
  } else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!Object.hasOwn(record, name)) return false;
    const props = schema.properties ?? {};
    for (const [k, v] of Object.entries(record)) {
      if (Object.hasOwn(props, k)) {
        if (!validates(props[k]!, v)) return false;
      } else if (schema.additionalProperties !== undefined && !validates(schema.additionalProperties, v)) return false;
    }
    const count = Object.keys(record).length;
    if (schema.minProperties !== undefined && count < schema.minProperties) return false;
    if (schema.maxProperties !== undefined && count > schema.maxProperties) return false;
  }
  return true;
}

function isType(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

/**
 * A strict deep copy of a zod schema, for checking responses: every `z.object` at any depth
 * refuses keys its shape does not declare (as OpenAPI's `additionalProperties: false` says),
 * instead of stripping them. Objects declared open (`z.looseObject`, `.passthrough()`, a
 * `.catchall(…)`) keep what they declare. Checks, refinements and transforms are kept:
 * each node is cloned with its own definition and only its children replaced.
 */
import * as z from 'zod';

type Node = z.ZodType & { _zod: { def: Record<string, unknown> & { type: string } } };

const memo = new WeakMap<z.ZodType, z.ZodType>();

/** The strict deep copy of `schema` (memoised, so recursive schemas stay finite). */
export function strictDeep<T extends z.ZodType>(schema: T): T {
  const found = memo.get(schema);
  if (found) return found as T;
  const node = schema as unknown as Node;
  const def = node._zod.def;
  const child = (s: unknown) => strictDeep(s as z.ZodType);
  let out: z.ZodType;
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const strictShape = Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, child(v)]));
      out = node.clone({ ...def, shape: strictShape, catchall: def.catchall ? child(def.catchall) : z.never() } as never);
      break;
    }
    case 'array':
      out = node.clone({ ...def, element: child(def.element) } as never);
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
    case 'success':
    case 'promise':
      out = node.clone({ ...def, innerType: child(def.innerType) } as never);
      break;
    case 'union':
      out = node.clone({ ...def, options: (def.options as z.ZodType[]).map(child) } as never);
      break;
    case 'intersection':
      // Each side would refuse the other's keys: strictness has to come from the merged shape.
      throw new Error('strictDeep: intersections are not supported; declare one object (z.object({...a.shape, ...b.shape}))');
    case 'record':
    case 'map':
      out = node.clone({ ...def, keyType: child(def.keyType), valueType: child(def.valueType) } as never);
      break;
    case 'set':
      out = node.clone({ ...def, valueType: child(def.valueType) } as never);
      break;
    case 'tuple':
      out = node.clone({ ...def, items: (def.items as z.ZodType[]).map(child), rest: def.rest ? child(def.rest) : def.rest } as never);
      break;
    case 'pipe':
      out = node.clone({ ...def, in: child(def.in), out: child(def.out) } as never);
      break;
    case 'lazy': {
      const getter = def.getter as () => z.ZodType;
      out = z.lazy(() => strictDeep(getter()));
      break;
    }
    default:
      // Leaves (string, number, enum, literal, unknown, custom, transform, …) hold no objects.
      out = schema;
  }
  memo.set(schema, out);
  return out as T;
}

/**
 * The synthesized stack as one map of resources, nested route-area stacks included, in the
 * parent's terms: each nested template's parameters are replaced by the values the parent
 * passes in (so a table ARN reads as the parent's own GetAtt, exactly as for a function of
 * the parent) and its own logical ids are prefixed with its resource id in the parent, so
 * IAM and wiring assertions read the same wherever a function lives.
 */
import type { CfnElement, Stack } from 'aws-cdk-lib';
import { Stack as CdkStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import type { VoiceControlStack } from '../../infra/stack.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface MergedTemplate {
  /** Parent resources plus every nested one (ids `<nested stack id>/<own id>`). */
  readonly resources: Record<string, Json>;
  /** Resources in the parent template alone. */
  readonly parentResourceCount: number;
  /** A construct's id in the merged view. */
  logicalId(construct: IConstruct): string;
}

function mergeNested(into: Record<string, Json>, nested: Stack, prefix: string, params: Record<string, unknown>): void {
  const own = Template.fromStack(nested).toJSON().Resources as Record<string, Json>;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const obj = value as Record<string, unknown>;
    if (typeof obj.Ref === 'string' && Object.keys(obj).length === 1) {
      if (obj.Ref in params) return params[obj.Ref];
      if (obj.Ref in own) return { Ref: `${prefix}${obj.Ref}` };
      return obj;
    }
    const getAtt = obj['Fn::GetAtt'];
    if (Array.isArray(getAtt) && Object.keys(obj).length === 1 && typeof getAtt[0] === 'string' && getAtt[0] in own) {
      return { 'Fn::GetAtt': [`${prefix}${getAtt[0]}`, ...getAtt.slice(1)] };
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, rewrite(v)]));
  };
  for (const [id, resource] of Object.entries(own)) into[`${prefix}${id}`] = rewrite(resource) as Json;
}

/** Call after the app is synthesized. */
export function mergedTemplate(stack: VoiceControlStack): MergedTemplate {
  const resources: Record<string, Json> = { ...(Template.fromStack(stack).toJSON().Resources as Record<string, Json>) };
  const parentResourceCount = Object.keys(resources).length;
  const prefixes = new Map<Stack, string>();
  for (const area of stack.routeAreas.values()) {
    const parentId = stack.getLogicalId(area.nestedStackResource as CfnElement);
    prefixes.set(area, `${parentId}/`);
    mergeNested(resources, area, `${parentId}/`, resources[parentId]!.Properties.Parameters ?? {});
  }
  const logicalId = (construct: IConstruct): string => {
    const owner = CdkStack.of(construct);
    return `${prefixes.get(owner) ?? ''}${owner.getLogicalId(construct as CfnElement)}`;
  };
  return { resources, parentResourceCount, logicalId };
}

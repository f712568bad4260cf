/**
 * What a deployed bundle holds, on a few real ones built by CDK (AppFunction → NodejsFunction
 * with infra/bundling.ts's options): the template tests skip esbuild, so this file is where
 * the bundling itself is checked. Minified ESM with the require shim, a linked source map, the
 * AWS SDK inside; a route carries its own manifest entry, not the manifest; the OpenAPI
 * document rides gzipped and is served whole; Argon2id's linux/arm64 binary ships beside the
 * password routes' bundles only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Duration, Stack } from 'aws-cdk-lib';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_MODULES } from '../../infra/bundling.js';
import { AppFunction } from '../../infra/constructs/app-function.js';
import { type RouteDefinition, routeById, routes } from '../../shared/routes.js';

const root = join(import.meta.dirname, '..', '..');
const built = ['getOpenApi', 'createSession', 'getContact'] as const;
const dirs = new Map<string, string>();

beforeAll(() => {
  const app = new App();
  const stack = new Stack(app, 'Bundles');
  const fns = built.map((id) => {
    const route = routeById(id);
    return [
      id,
      new AppFunction(stack, id, {
        entry: join(root, `${route.handler}.ts`),
        projectRoot: root,
        description: id,
        timeout: Duration.seconds(10),
        route,
        ...(route.passwords ? { nodeModules: PASSWORD_MODULES } : {}),
      }),
    ] as const;
  });
  const assembly = app.synth().directory;
  for (const [id, fn] of fns) dirs.set(id, join(assembly, (fn.function.node.findChild('Code') as Asset).assetPath));
}, 240_000);

const codeOf = (id: string) => readFileSync(join(dirs.get(id)!, 'index.mjs'), 'utf8');

describe('function bundles', () => {
  it('are minified ESM with the require shim, a linked source map, and the AWS SDK inside', () => {
    for (const id of built) {
      const code = codeOf(id);
      expect(code.startsWith("import { createRequire } from 'module'; const require = createRequire(import.meta.url);"), id).toBe(true);
      expect(existsSync(join(dirs.get(id)!, 'index.mjs.map')), id).toBe(true);
      // NODE_OPTIONS=--enable-source-maps finds the map through this comment.
      expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map'), id).toBe(true);
      // Minified (long lines; only string literals keep their newlines), no import left for the AWS SDK.
      expect(code.length / code.split('\n').length, id).toBeGreaterThan(500);
      const sdkImport = /\bfrom\s*["']@aws-sdk\/[^"']+|\bimport\s*\(\s*["']@aws-sdk\/[^"']+/.exec(code);
      expect(sdkImport?.[0], `${id} imports the SDK at run time`).toBeUndefined();
    }
    // The SDK is really there (getContact reads the table).
    expect(codeOf('getContact').includes('DynamoDBClient')).toBe(true);
  });

  it('carry their own manifest entry and no other route', () => {
    for (const id of built) {
      const code = codeOf(id);
      // The entry rides as a JSON string literal (esbuild quotes it with ' when minifying).
      expect(code.includes(JSON.stringify(routeById(id))), id).toBe(true);
      const others = (routes as readonly RouteDefinition[]).filter((r) => r.handler !== routeById(id).handler);
      expect(
        others.filter((r) => code.includes(`"${r.handler}"`)).map((r) => r.id),
        id,
      ).toEqual([]);
    }
  });

  it('serve the OpenAPI document from its gzipped copy, whole', async () => {
    expect(codeOf('getOpenApi').includes('"openapi":"3.')).toBe(false);
    expect(codeOf('getOpenApi').length).toBeLessThan(300_000);
    const { handler } = (await import(pathToFileURL(join(dirs.get('getOpenApi')!, 'index.mjs')).href)) as {
      handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<{ statusCode: number; body: string }>;
    };
    const event = {
      rawPath: '/openapi.json',
      headers: {},
      requestContext: { requestId: 'req-1', http: { method: 'GET', sourceIp: '127.0.0.1' } },
    } as unknown as APIGatewayProxyEventV2;
    const res = await handler(event, { awsRequestId: 'req-1', functionName: 'getOpenApi' } as Context);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual(JSON.parse(readFileSync(join(root, 'docs', 'openapi.json'), 'utf8')));
  });

  it('ship Argon2id’s linux/arm64 binary beside the password routes’ bundles only', () => {
    for (const id of built) {
      const modules = join(dirs.get(id)!, 'node_modules', '@node-rs');
      if (routeById(id).passwords) expect(readdirSync(modules).sort(), id).toEqual(['argon2', 'argon2-linux-arm64-gnu']);
      else expect(existsSync(modules), id).toBe(false);
    }
  });
});

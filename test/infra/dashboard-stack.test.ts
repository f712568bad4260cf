/**
 * Infra for dashboard sessions and account deletion on a stack of only the dashboard's routes and the deletion job (cdk-nag;
 * no bundling: nothing here reads a bundle): origins and mail settings reach the functions that need them,
 * SES is granted on the configured identity only, and the deletion job may list and delete import
 * objects. (The full stack's file, stack.test.ts, checks the rest from the manifest; that the
 * password routes ship Argon2id's linux/arm64 binary is checked on real bundles in bundles.test.ts.)
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppFunction } from '../../infra/constructs/app-function.js';
import { defaultDashboardOrigin, effectiveTableAccess, needsAppSecret, VoiceControlStack } from '../../infra/stack.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { scheduledJobs } from '../../shared/workers.js';
import { type MergedTemplate, mergedTemplate } from '../support/merged-template.js';
import { SKIP_BUNDLING } from '../support/skip-bundling.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const dashboardRoutes = (routes as readonly RouteDefinition[]).filter((r) => ['session', 'dashboard_origin', 'portal_origin'].includes(r.auth));
const deletionJob = scheduledJobs.filter((j) => j.id === 'accountDeletions');
const root = join(import.meta.dirname, '..', '..');

let app: App;
let stack: VoiceControlStack;
let resources: Record<string, Json>;
let merged: MergedTemplate;

beforeAll(() => {
  const context = (JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
  app = new App({
    context: {
      ...context,
      ...SKIP_BUNDLING,
      dashboardOrigin: 'https://dash.acme.test',
      portalOrigin: 'https://portal.acme.test',
      mailFrom: 'no-reply@mail.acme.test',
    },
  });
  stack = new VoiceControlStack(app, 'DashboardOnly', { projectRoot: root, routes: dashboardRoutes, workers: [], scheduledJobs: deletionJob });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }));
  app.synth();
  merged = mergedTemplate(stack);
  resources = merged.resources;
}, 240_000);

const logicalId = (c: unknown) => merged.logicalId(((c as { node: { defaultChild?: unknown } }).node.defaultChild ?? c) as IConstruct);
const fnOf = (id: string): AppFunction => stack.routeFunctions.get(id) ?? stack.scheduledFunctions.get(id)!;
const envOf = (id: string) => (resources[logicalId(fnOf(id).function)]!.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
const statementsOf = (id: string) =>
  (
    (resources[logicalId(fnOf(id).role)]?.Properties.Policies ?? []) as { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } }[]
  ).flatMap((p) => p.PolicyDocument.Statement);
const actionsOf = (id: string) => statementsOf(id).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

describe('the dashboard routes and the deletion job on AWS', () => {
  it('session routes write the table (the idle expiry slides) and read the app secret', () => {
    for (const r of dashboardRoutes.filter((x) => x.auth === 'session')) {
      expect(effectiveTableAccess(r), r.id).toBe('write');
      expect(needsAppSecret(r), r.id).toBe(true);
      expect(actionsOf(r.id), r.id).toContain('dynamodb:UpdateItem');
      expect(envOf(r.id).APP_SECRET_ARN, r.id).toBeDefined();
    }
  });

  it('gives each route the origins it checks or links to, and SES only to the mailing routes, on the configured identity', () => {
    for (const r of dashboardRoutes) {
      const env = envOf(r.id);
      if (r.auth === 'portal_origin') expect(env.PORTAL_ORIGIN, r.id).toBe('https://portal.acme.test');
      else expect(env.DASHBOARD_ORIGIN, r.id).toBe('https://dash.acme.test');
      if (r.mail) {
        expect(env).toMatchObject({ MAIL_TRANSPORT: 'ses', MAIL_FROM: 'no-reply@mail.acme.test', PORTAL_ORIGIN: 'https://portal.acme.test' });
        const ses = statementsOf(r.id).filter((s) => JSON.stringify(s.Action).includes('ses:SendEmail'));
        expect(ses).toHaveLength(1);
        expect(JSON.stringify(ses[0]!.Resource)).toContain('identity/mail.acme.test');
        expect(JSON.stringify(ses[0]!.Resource)).not.toContain('*');
      } else {
        expect(env.MAIL_TRANSPORT, r.id).toBeUndefined();
        expect(actionsOf(r.id), r.id).not.toContain('ses:SendEmail');
      }
    }
  });

  it('lets the deletion job list and delete import objects, reach the carrier and read the app secret', () => {
    const actions = actionsOf('accountDeletions');
    expect(actions).toEqual(
      expect.arrayContaining(['s3:ListBucket', 's3:DeleteObject', 'dynamodb:BatchWriteItem', 'secretsmanager:GetSecretValue', 'kms:Decrypt']),
    );
    expect(envOf('accountDeletions')).toMatchObject({
      IMPORT_BUCKET: expect.anything(),
      PUBLIC_BASE_URL: expect.anything(),
      APP_SECRET_ARN: expect.anything(),
    });
  });

  it('reports no unacknowledged cdk-nag errors or warnings', () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    expect(report.violations.map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((x) => x.constructPath).join(', ')}`)).toEqual([]);
  });
});

describe('the default dashboard origin', () => {
  const apiOrigin = 'https://abc123.execute-api.us-east-1.amazonaws.com';
  it('is the origin of publicBaseUrl when that context is set (a custom domain), else the execute-api origin', () => {
    expect(defaultDashboardOrigin('https://api.acme.test/v1-base/', apiOrigin)).toBe('https://api.acme.test');
    expect(defaultDashboardOrigin('https://api.acme.test:8443', apiOrigin)).toBe('https://api.acme.test:8443');
    expect(defaultDashboardOrigin(undefined, apiOrigin)).toBe(apiOrigin);
  });
});

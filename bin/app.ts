#!/usr/bin/env node
/**
 * CDK app entry point (cdk.json: `npx tsx bin/app.ts`). Environment-agnostic: no account
 * or region is set, so `npx cdk synth` works offline without credentials. cdk-nag's
 * AwsSolutions checks run on every synth (registered in buildApp).
 */
import { buildApp } from '../infra/stack.js';

const { app } = buildApp();
app.synth();

/**
 * Bundle-time stand-in for @aws-sdk/credential-provider-node inside Lambda bundles.
 *
 * Lambda always hands a function its role's credentials in environment variables, so
 * the SDK's full default chain (SSO, INI files, IMDS, container, web identity, login —
 * and the nested STS/SSO clients they carry) is dead weight: ~90 KB of every bundle.
 * The CDK bundling aliases the chain to this module; local runs and tests use the real
 * chain. Pure re-export of the SDK's own env provider.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);

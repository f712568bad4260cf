/**
 * Password hashing (see docs/decisions/auth-and-sessions.md): Argon2id through @node-rs/argon2 (a maintained Rust binding,
 * prebuilt per platform; bundled for Lambda as a node module, infra/constructs/app-function.ts).
 * Parameters: OWASP's Argon2id recommendation (19 MiB, 2 passes, 1 lane); the encoded hash
 * carries them, so raising them later still verifies old hashes.
 *
 * Timing: an unknown email or a passwordless user is verified against a dummy hash made
 * with the same parameters, so every wrong answer costs one Argon2id verification.
 */
import { randomBytes } from 'node:crypto';
import { type Algorithm, hash, verify } from '@node-rs/argon2';

/** Algorithm.Argon2id (a const enum the isolated-modules build cannot read). */
const ARGON2ID = 2 as Algorithm;

const PARAMS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 256;

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `a password has at least ${PASSWORD_MIN_LENGTH} characters`;
  if ([...password].length > PASSWORD_MAX_LENGTH) return `a password has at most ${PASSWORD_MAX_LENGTH} characters`;
  return undefined;
}

export const hashPassword = (password: string): Promise<string> => hash(password, PARAMS);

let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword(randomBytes(18).toString('base64')));

/** True only when `stored` is a hash of `password`; always one Argon2id verification. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  const target = stored ?? (await dummyHash());
  const matches = await verify(target, password).catch(() => false);
  return Boolean(stored) && matches;
}

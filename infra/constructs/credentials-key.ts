/**
 * The KMS key that seals other parties' secrets (carrier credentials, the sandbox
 * carrier's auth tokens; webhook signing secrets later): a key outside the table, with
 * yearly rotation. Functions get encrypt or decrypt rights from their manifest entry only.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export class CredentialsKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Seals carrier credentials and other third-party secrets stored in the table',
      enableKeyRotation: true,
      // Sealed values in the retained table are unreadable without it.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * Exactly kms:Encrypt or kms:Decrypt on this key (seal/open call nothing else), not the
   * CDK's grantEncrypt, which adds kms:ReEncrypt* and kms:GenerateDataKey*.
   */
  grant(grantee: IGrantable, access: 'encrypt' | 'decrypt' | 'encrypt_decrypt'): void {
    // encrypt_decrypt: a calendar route that opens a Google token and re-seals the refreshed one.
    if (access === 'encrypt_decrypt') this.key.grant(grantee, 'kms:Encrypt', 'kms:Decrypt');
    else this.key.grant(grantee, access === 'encrypt' ? 'kms:Encrypt' : 'kms:Decrypt');
  }
}

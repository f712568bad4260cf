/**
 * The bucket that keeps import evidence (the contact CSV files tenants upload), plus the
 * bucket that receives its S3 server access logs.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export type BucketAccess = 'read' | 'write';

/** Functions write import evidence as imports/<tenant_id>/<import_id>.csv (shared/storage). */
export const IMPORT_OBJECTS_PATTERN = 'imports/*';

export class ImportBucket extends Construct {
  readonly bucket: s3.Bucket;
  readonly accessLogsBucket: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogs', {
      // Server access log delivery supports SSE-S3 only.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Evidence: an overwrite or delete keeps the previous version.
      versioned: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'import-bucket/',
      lifecycleRules: [{ id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * Object-level access to the imports/ prefix only, with explicit actions (the bucket
   * grant helpers would add wildcard actions such as s3:GetObject* and s3:Abort*).
   */
  /** List and delete objects (the account deletion's `imports/<tenant>/` prefix). */
  grantErasure(grantee: iam.IGrantable): void {
    // Listing only under imports/ (the s3:prefix condition): the erasure never sees other keys.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [IMPORT_OBJECTS_PATTERN] } },
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:DeleteObject'], resources: [this.bucket.arnForObjects(IMPORT_OBJECTS_PATTERN)] }),
    );
  }

  grantObjects(grantee: iam.IGrantable, access: BucketAccess): void {
    const actions = access === 'write' ? ['s3:GetObject', 's3:PutObject'] : ['s3:GetObject'];
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources: [this.bucket.arnForObjects(IMPORT_OBJECTS_PATTERN)] }));
  }
}

// The meeting recordings: one private bucket, encrypted with a key of the stack (SSE-KMS, with an S3 Bucket Key so
// a piece's upload does not cost a KMS call), TLS only, public access blocked, objects expiring after
// recordingRetentionDays. Grants follow the object layout of core/adapters/s3/recording-store.ts: the bot task only
// writes pieces, the results function reads pieces and writes the file, the status function only reads the file
// (the presigned URL it signs carries its permissions).
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { MeetingBotSettings } from '../settings';
import { allow, grantWithWildcard } from './wildcard-grant';

export class Recordings extends Construct {
  readonly key: kms.Key;
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: { settings: MeetingBotSettings }) {
    super(scope, id);
    const { settings } = props;
    const removalPolicy = settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.key = new kms.Key(this, 'Key', {
      description: `Meeting Bot ${settings.stage}: encrypts the meeting recordings`,
      enableKeyRotation: true,
      removalPolicy,
    });
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: this.key,
      bucketKeyEnabled: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      lifecycleRules: [
        {
          id: 'expire-recordings',
          prefix: 'recordings/',
          expiration: Duration.days(settings.recordingRetentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy,
    });
  }

  /** RECORDINGS_BUCKET for whoever reads or writes recordings. */
  environment(): Record<string, string> {
    return { RECORDINGS_BUCKET: this.bucket.bucketName };
  }

  /** The bot task: PutObject of its pieces only. */
  grantUploadPieces(grantee: iam.IGrantable): void {
    this.allow(grantee, ['s3:PutObject'], 'recordings/*/pieces/*', 'kms:GenerateDataKey');
  }

  /**
   * The results stage: lists a session's prefix, reads its pieces, writes (and heads) its file in a multipart upload
   * (aborted when the assembly fails), and deletes that file when the session's data was deleted while it assembled
   * it (a failed session's recording).
   */
  grantAssemble(grantee: iam.IGrantable): void {
    this.allowList(grantee);
    this.allow(grantee, ['s3:GetObject'], 'recordings/*/pieces/*');
    this.allow(
      grantee,
      ['s3:PutObject', 's3:AbortMultipartUpload', 's3:GetObject', 's3:DeleteObject'],
      'recordings/*/recording.webm',
      'kms:Decrypt',
      'kms:GenerateDataKey',
    );
  }

  /** Signs download addresses of the assembled file (the recording endpoint). */
  grantReadFile(grantee: iam.IGrantable): void {
    this.allow(grantee, ['s3:GetObject'], 'recordings/*/recording.webm', 'kms:Decrypt');
  }

  /** Deletes a session's recording (RecordingStore.deleteAll): lists its prefix and deletes what is there. */
  grantDelete(grantee: iam.IGrantable): void {
    this.allowList(grantee);
    this.allow(grantee, ['s3:DeleteObject'], 'recordings/*');
  }

  /** `actions` on the objects under `keys`, and `keyActions` on the bucket's key (to write or read them). */
  private allow(grantee: iam.IGrantable, actions: string[], keys: string, ...keyActions: string[]): void {
    grantWithWildcard(
      grantee,
      new iam.PolicyStatement({ actions, resources: [this.bucket.arnForObjects(keys)] }),
      'Recordings are keyed by bot id (recordings/<bot_id>/…), known only at run time: the grant is to that ' +
        'layout in this one bucket (pieces, or the assembled file), never to the whole bucket.',
    );
    if (keyActions.length > 0) this.key.grant(grantee, ...keyActions);
  }

  private allowList(grantee: iam.IGrantable): void {
    allow(grantee, {
      actions: ['s3:ListBucket'],
      resources: [this.bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': ['recordings/*'] } },
    });
  }
}

// Every S3 and KMS request the recording adapters make (core/adapters/s3/recording-store.ts), judged by the IAM
// policy simulator against each caller's policies in the synthesized template: the bot task only puts pieces, the
// results function lists, reads pieces and writes (or takes back) the file, the status function only reads the file. Requests of
// the wrong caller are denied, so the test fails when a grant widens or disappears.
import { rmSync } from 'node:fs';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TemplateResolver } from '../aws/support/deployed-stack';
import { denials, type IamRequest, simulate } from '../aws/support/iam-simulation';
import { motoAccountId } from '../aws/support/moto';
import { refTarget, type Synthesized, synthStack } from './synth-stack';

let s: Synthesized;
let resolver: TemplateResolver;
const bucketName = 'meeting-bot-recordings';
const bot = '0b5a7c9e-1f2d-4e3a-9b8c-7d6e5f4a3b2c';

beforeAll(() => {
  s = synthStack({}, { bundle: false });
  resolver = new TemplateResolver(s.json);
  const bucketId = Object.entries(s.json.Resources).find(([, r]) => r.Type === 'AWS::S3::Bucket')![0];
  resolver.set(bucketId, { ref: bucketName, attrs: { Arn: `arn:aws:s3:::${bucketName}` } });
  const keyId = Object.entries(s.json.Resources).find(
    ([id, r]) => r.Type === 'AWS::KMS::Key' && id.startsWith('RecordingsKey'),
  )![0];
  const keyUuid = '1234abcd-12ab-34cd-56ef-1234567890ab';
  resolver.set(keyId, {
    ref: keyUuid,
    attrs: { Arn: `arn:aws:kms:us-east-1:${motoAccountId}:key/${keyUuid}` },
  });
}, 300_000);
afterAll(() => rmSync(s?.outdir ?? '/nonexistent', { recursive: true, force: true }));

const logicalId = (construct: IConstruct) => s.stack.getLogicalId(construct.node.defaultChild as never);
const role = (fn: { function: IConstruct }) =>
  refTarget(s.json.Resources[logicalId(fn.function)]!.Properties!.Role)!;

function request(principal: string, action: string, resource: string, context: IamRequest['context'] = {}) {
  return {
    principal,
    action,
    resource,
    context: { 'aws:SecureTransport': 'true', ...context },
    from: action,
  };
}

const piece = `arn:aws:s3:::${bucketName}/recordings/${bot}/pieces/1/12.webm`;
const file = `arn:aws:s3:::${bucketName}/recordings/${bot}/recording.webm`;
const otherBotsPiece = `arn:aws:s3:::${bucketName}/recordings/6f1e2d3c-4b5a-4987-8a6b-5c4d3e2f1a0b/pieces/0/3.webm`;
const keyArn = () => `arn:aws:kms:us-east-1:${motoAccountId}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
const viaS3 = { 'kms:ViaService': `s3.us-east-1.amazonaws.com`, 'kms:CallerAccount': motoAccountId };

describe('the recording calls under the IAM simulation', () => {
  it('allows each caller exactly its calls', async () => {
    const taskRole = logicalId(s.stack.runtime.taskDefinition.taskRole);
    const results = role(s.stack.delivery.resultsFunction);
    const status = role(s.stack.api.functions.get('status')!);
    const allowed = [
      // The bot uploads a piece (S3 asks KMS for a data key as the caller).
      request(taskRole, 's3:PutObject', piece),
      // Under any bot's id: one task role serves every bot and ECS cannot tag a task's session with its bot, so the
      // grant cannot name the bot (docs/recording.md#who-can-read-and-write-the-recordings).
      request(taskRole, 's3:PutObject', otherBotsPiece),
      request(taskRole, 'kms:GenerateDataKey', keyArn(), viaS3),
      // The results stage lists the bot's prefix, reads its pieces, writes and heads the file (a multipart upload:
      // its parts are PutObject, KMS decrypts them to complete it, and a failed one is aborted).
      request(results, 's3:ListBucket', `arn:aws:s3:::${bucketName}`, {
        's3:prefix': `recordings/${bot}/pieces/`,
      }),
      request(results, 's3:GetObject', piece),
      request(results, 'kms:Decrypt', keyArn(), viaS3),
      request(results, 's3:PutObject', file),
      request(results, 's3:AbortMultipartUpload', file),
      request(results, 'kms:GenerateDataKey', keyArn(), viaS3),
      request(results, 's3:GetObject', file),
      // A failed session's file, assembled while its data was deleted, taken back.
      request(results, 's3:DeleteObject', file),
      // The status function's presigned GET of the file, and S3 decrypting it for the download.
      request(status, 's3:GetObject', file),
      request(status, 'kms:Decrypt', keyArn(), viaS3),
      // A meeting's data deleted (the API's data function, the retention sweep): the bot's objects listed and deleted.
      ...[role(s.stack.api.functions.get('data')!), role(s.stack.operations.sweeper)].flatMap((deleter) => [
        request(deleter, 's3:ListBucket', `arn:aws:s3:::${bucketName}`, {
          's3:prefix': `recordings/${bot}/`,
        }),
        request(deleter, 's3:DeleteObject', piece),
        request(deleter, 's3:DeleteObject', file),
      ]),
    ];
    expect(denials(await simulate(s.json, resolver, allowed))).toEqual([]);

    const denied = [
      // The bot task only adds pieces: it reads, lists and deletes nothing, and writes nothing but pieces.
      request(taskRole, 's3:GetObject', piece),
      request(taskRole, 's3:GetObject', otherBotsPiece),
      request(taskRole, 's3:PutObject', file),
      request(taskRole, 's3:PutObject', `arn:aws:s3:::${bucketName}/recordings/${bot}/notes.txt`),
      request(taskRole, 's3:PutObject', `arn:aws:s3:::${bucketName}/elsewhere/${bot}/pieces/1/12.webm`),
      request(taskRole, 's3:DeleteObject', piece),
      request(taskRole, 's3:ListBucket', `arn:aws:s3:::${bucketName}`, { 's3:prefix': `recordings/${bot}/` }),
      request(status, 's3:GetObject', piece),
      request(status, 's3:PutObject', file),
      request(results, 's3:ListBucket', `arn:aws:s3:::${bucketName}`, { 's3:prefix': 'other/' }),
      request(results, 's3:DeleteObject', piece),
      // The deleters delete, and read nothing.
      request(role(s.stack.api.functions.get('data')!), 's3:GetObject', file),
      request(role(s.stack.operations.sweeper), 's3:PutObject', file),
    ];
    const verdicts = await simulate(s.json, resolver, denied);
    expect(verdicts.map((v) => `${v.request.action} ${v.result}`)).toEqual(
      denied.map((r) => `${r.action} ImplicitlyDenied`),
    );
  });
});

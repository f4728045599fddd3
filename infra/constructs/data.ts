// The data layer: the one DynamoDB table, with the key schema, TTL attribute and index that core/ builds keys for.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { runningIndex, ttlAttribute } from '../../core/adapters/dynamodb/table';
import type { MeetingBotSettings } from '../settings';
import { allow } from './wildcard-grant';

/** The item-level actions the service uses (core/adapters/dynamodb): no scans, no table management. */
export type ItemAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:Query';

/** What request handling and session bookkeeping need. */
export const readWriteItems: ItemAction[] = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:Query',
];

export class BotData extends Construct {
  readonly table: dynamodb.Table;
  /** The deployment's pointInTimeRecoveryDays (0: off). */
  readonly pointInTimeRecoveryDays: number;

  constructor(scope: Construct, id: string, props: { settings: MeetingBotSettings }) {
    super(scope, id);
    const { settings } = props;
    this.pointInTimeRecoveryDays = settings.pointInTimeRecoveryDays;
    this.table = new dynamodb.Table(this, 'Table', {
      tableName: `meeting-bot-${settings.stage}`,
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ttlAttribute,
      // Its copies outlive a deletion by this many days: the operator's trade between restores and erasure.
      pointInTimeRecoverySpecification:
        settings.pointInTimeRecoveryDays > 0
          ? { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: settings.pointInTimeRecoveryDays }
          : { pointInTimeRecoveryEnabled: false },
      deletionProtection: settings.production,
      removalPolicy: settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    // Sparse: only running sessions carry these attributes; the heartbeat sweeper queries it.
    this.table.addGlobalSecondaryIndex({
      indexName: runningIndex.name,
      partitionKey: { name: runningIndex.pk, type: dynamodb.AttributeType.STRING },
      sortKey: { name: runningIndex.sk, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });
  }

  /**
   * Grants item actions on the table, and on the `running` index only to those that query it; explicit ARNs
   * (no `index/*`), unlike Table.grantReadWriteData.
   */
  grantItems(grantee: iam.IGrantable, actions: ItemAction[], options: { runningIndex?: boolean } = {}) {
    const principal = grantee.grantPrincipal;
    allow(principal, { actions, resources: [this.table.tableArn] });
    if (options.runningIndex) {
      allow(principal, {
        actions: ['dynamodb:Query'],
        resources: [`${this.table.tableArn}/index/${runningIndex.name}`],
      });
    }
  }
}

// PoolScaler on ECS: the warm pool is an ECS service; growing it raises its desired count (one DescribeServices for
// the current count, one UpdateService), capped at the pool's maximum (the same bound as its Application Auto
// Scaling target, botPoolMax), so the per-minute scaling can shrink it back once the storm is over. ECS launches the
// service's new tasks itself, at Fargate's launch rate, outside our RunTask quota: one call grows the pool by any
// number of tasks.
import { DescribeServicesCommand, type ECSClient, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import type { PoolScaler } from '../../ports/pool-scaler';

export interface EcsPoolSettings {
  cluster: string;
  /** The pool service's name or ARN (BOT_POOL_SERVICE). */
  service: string;
  /** The most pooled bots the service may run (BOT_POOL_MAX). */
  max: number;
}

export class EcsPoolScaler implements PoolScaler {
  constructor(
    private readonly ecs: ECSClient,
    private readonly settings: EcsPoolSettings,
  ) {}

  async grow(by: number): Promise<{ desired: number; max: number }> {
    const { cluster, service, max } = this.settings;
    const { services = [] } = await this.ecs.send(
      new DescribeServicesCommand({ cluster, services: [service] }),
    );
    const current = services[0]?.desiredCount;
    if (current === undefined) throw new Error(`pool service ${service} not found in ${cluster}`);
    const desired = Math.min(max, current + by);
    if (desired > current) {
      await this.ecs.send(new UpdateServiceCommand({ cluster, service, desiredCount: desired }));
    }
    return { desired, max };
  }
}

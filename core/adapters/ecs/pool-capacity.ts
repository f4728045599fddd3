// The warm pool's capacity on ECS: the scheduler adds idle bots by raising the pool service's desired count, within
// the pool's maximum (the same bound its scaling uses). The pool's scale-in takes the surplus back afterwards.
import { DescribeServicesCommand, type ECSClient, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import type { Logger } from '../../log';
import type { PoolCapacity } from '../../ports/pool-capacity';

export interface EcsPoolSettings {
  cluster: string;
  service: string;
  /** The pool's most tasks (busy and idle), BOT_POOL_MAX. */
  max: number;
}

export class EcsPoolCapacity implements PoolCapacity {
  constructor(
    private readonly ecs: ECSClient,
    private readonly settings: EcsPoolSettings,
    private readonly log: Logger,
  ) {}

  async addIdle(count: number): Promise<void> {
    if (count <= 0) return;
    const { cluster, service, max } = this.settings;
    const { services } = await this.ecs.send(new DescribeServicesCommand({ cluster, services: [service] }));
    const current = services?.[0]?.desiredCount;
    if (current === undefined) throw new Error(`the pool service ${service} was not found`);
    const desired = Math.min(max, current + count);
    if (desired <= current) {
      this.log.warn('warm pool at its maximum: scheduled sessions beyond it start cold', {
        max,
        wanted: count,
      });
      return;
    }
    await this.ecs.send(new UpdateServiceCommand({ cluster, service, desiredCount: desired }));
    this.log.info('warm pool raised for scheduled sessions', { from: current, to: desired });
  }
}

// The warm pool's capacity on ECS: the scheduler adds idle bots by raising the pool service's desired count, within
// the pool's maximum (the same bound its scaling uses), through the same scaler the storm's growth uses. The pool's
// scale-in takes the surplus back afterwards.
import type { ECSClient } from '@aws-sdk/client-ecs';
import type { Logger } from '../../log';
import type { PoolCapacity } from '../../ports/pool-capacity';
import { EcsPoolScaler, type EcsPoolSettings } from './ecs-pool-scaler';

export class EcsPoolCapacity implements PoolCapacity {
  private readonly scaler: EcsPoolScaler;

  constructor(
    ecs: ECSClient,
    settings: EcsPoolSettings,
    private readonly log: Logger,
  ) {
    this.scaler = new EcsPoolScaler(ecs, settings);
  }

  async addIdle(count: number): Promise<void> {
    if (count <= 0) return;
    const { desired, max } = await this.scaler.grow(count);
    if (desired >= max)
      this.log.warn('warm pool at its maximum: scheduled sessions beyond it start cold', {
        max,
        wanted: count,
      });
    else this.log.info('warm pool raised for scheduled sessions', { to: desired });
  }
}

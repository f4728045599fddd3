// Port: the warm pool's size ahead of demand — the scheduler adds idle bots for the scheduled sessions due soon (ECS:
// the pool service's desired count; locally: the runner's idle bot processes).

export interface PoolCapacity {
  /**
   * Adds `count` idle bots to the pool now, up to its maximum: one per scheduled session whose start the scheduler
   * queues (it queues each once). Only adds: the pool's own scaling takes the surplus back once they are served.
   */
  addIdle(count: number): Promise<void>;
}

// Port: the warm pool's size ahead of demand — the scheduler asks for idle bots for the sessions due soon (ECS: the
// pool service's desired count; locally: the runner's idle bot processes).

export interface PoolCapacity {
  /**
   * Keeps at least `upcoming` idle bots beyond the pool's usual size, for the scheduled sessions due within the
   * scheduler's window. Only raises: the pool's own scaling brings it back down once they are served.
   */
  reserveFor(upcoming: number): Promise<void>;
}

// Port: the warm pool's size on the platform (the ECS service's desired count on AWS; locally the runner's idle bot
// processes). Two use cases raise it: the scheduler, ahead of the sessions due soon, and the storm's growth, for
// offers no pooled bot claimed. Only raises: the pool's own scaling takes the surplus back once they are served.

export interface PoolScaler {
  /**
   * Raises the pool's desired size by `by` bots, never above its configured maximum; resolves with the size asked
   * for (unchanged when already at the maximum).
   */
  grow(by: number): Promise<{ desired: number; max: number }>;
}

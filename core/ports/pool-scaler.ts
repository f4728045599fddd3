// Port: the warm pool's size on the platform (the ECS service's desired count on AWS).

export interface PoolScaler {
  /**
   * Raises the pool's desired size by `by` bots, never above its configured maximum; resolves with the size asked
   * for (unchanged when already at the maximum).
   */
  grow(by: number): Promise<{ desired: number; max: number }>;
}

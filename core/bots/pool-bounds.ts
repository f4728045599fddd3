// The warm pool's size bounds, read by the deployment's settings (infra/settings.ts: botPoolSize, botPoolMax) and by
// the functions' configuration (core/config.ts: BOT_POOL_SIZE, BOT_POOL_MAX), so a size `cdk deploy` accepts is one
// the functions accept too; the reasons are here and in docs/warm-pool.md ("How large").

/**
 * The most pooled tasks, idle and busy, the pool service may be scaled to (botPoolMax, the bound of the scheduler's
 * and the storm's growth). AWS's own ceiling: ECS runs at most 5,000 tasks per service (the "Tasks per service" quota,
 * not adjustable: Amazon ECS endpoints and quotas, AWS General Reference). The account's Fargate On-Demand vCPU quota
 * must cover botPoolMax × the task's vCPU (`npm run admin -- doctor --aws`, fargate:quota), 1,050 vCPU for a 1,000-bot
 * schedule on 1-vCPU tasks, and Fargate launches at most 20 tasks a second (100 at once), so a raise of 1,000 takes
 * about 50 s: the scheduler raises the pool minutes ahead (docs/scheduled-joins.md).
 */
export const poolMaxLimit = 5_000;

/**
 * The most idle bots kept at all times (botPoolSize, the scaling's minimum). Not a platform limit but a cost guard:
 * every idle bot is billed around the clock ($0.0544 an hour at 1 vCPU / 2 GiB, docs/cost.md), so 1,000 cost about
 * $40,000 a month; a schedule needs no large floor (the scheduler raises the pool ahead of join_at, up to botPoolMax)
 * and an ad-hoc storm larger than its first minute's joins is served cold anyway. A deploy's rollout briefly runs up to
 * twice the pool's count (minimum healthy 100 %, maximum 200 %), within the 5,000 tasks of a service at this bound.
 */
export const poolSizeLimit = 1_000;

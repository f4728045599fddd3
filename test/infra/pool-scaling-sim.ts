// The warm pool's size over time as AWS would run it from the synthesized template: the idle bots' per-minute metric,
// the scaling alarms (CloudWatch), their step policies and cooldowns (Application Auto Scaling) and the service (ECS:
// replaces stopped tasks, stops unprotected ones on scale-in), on a virtual clock of whole seconds.
import type { ECSClient } from '@aws-sdk/client-ecs';
import { DescribeServicesCommand, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import { refTarget, resourcesOfType, type TemplateJson } from './synth-stack';

interface Step {
  lower?: number;
  upper?: number;
  adjustment: number;
}

interface ScalingRule {
  threshold: number;
  above: boolean;
  periods: number;
  datapoints: number;
  cooldownS: number;
  aggregation: 'Minimum' | 'Maximum' | 'Average';
  steps: Step[];
}

export interface PoolScaling {
  min: number;
  max: number;
  out: ScalingRule;
  in: ScalingRule;
}

/** The pool's scalable target, alarms and step policies, read from the template. */
export function poolScalingFrom(json: TemplateJson): PoolScaling {
  const [[, target]] = resourcesOfType(json, 'AWS::ApplicationAutoScaling::ScalableTarget') as [
    [string, never],
  ];
  const rules = resourcesOfType(json, 'AWS::CloudWatch::Alarm')
    .map(([, a]) => a.Properties!)
    .filter((a) =>
      (a.AlarmActions ?? []).some((x: unknown) =>
        json.Resources[refTarget(x) ?? '']?.Type.includes('Scaling'),
      ),
    )
    .map((a): ScalingRule => {
      const c = json.Resources[refTarget(a.AlarmActions[0])!]!.Properties!.StepScalingPolicyConfiguration;
      const expression = a.Metrics.find((m: { Expression?: string }) => m.Expression)?.Expression;
      if (expression !== 'FILL(idle, 0)') throw new Error(`a scaling alarm on ${expression}: not modelled`);
      return {
        threshold: a.Threshold,
        above: a.ComparisonOperator === 'GreaterThanOrEqualToThreshold',
        periods: a.EvaluationPeriods,
        datapoints: a.DatapointsToAlarm ?? a.EvaluationPeriods,
        cooldownS: c.Cooldown,
        aggregation: c.MetricAggregationType,
        steps: c.StepAdjustments.map((s: Record<string, number>) => ({
          lower: s.MetricIntervalLowerBound,
          upper: s.MetricIntervalUpperBound,
          adjustment: s.ScalingAdjustment,
        })),
      };
    });
  const props = (target as { Properties: { MinCapacity: number; MaxCapacity: number } }).Properties;
  return {
    min: props.MinCapacity,
    max: props.MaxCapacity,
    out: rules.find((r) => !r.above)!,
    in: rules.find((r) => r.above)!,
  };
}

interface Task {
  state: 'starting' | 'idle' | 'busy';
  readyAt: number;
  /** Second of each minute at which an idle bot records itself (core/metrics.ts pooledBotIdle). */
  phase: number;
  endsAt?: number;
}

export interface WorldOptions {
  scaling: PoolScaling;
  /** How long a new task takes to be an idle, warm bot (pull, start, Chromium): uniform in [min, max] s. */
  startS?: [number, number];
  /** How long ECS takes to stop a task it chose to stop. */
  stopDelayS?: number;
  /** How long after its minute a datapoint reaches the alarm (0: when the minute ends). */
  metricLagS?: number;
}

/** One pool service and its scaling; `tick()` advances one second. */
export class PoolWorld {
  t = 0;
  desired: number;
  readonly tasks: Task[] = [];
  /** Idle bots recorded per minute (the metric's Sum). */
  private readonly idlePerMinute = new Map<number, number>();
  private readonly stopping: { task: Task; at: number }[] = [];
  private lastAction = { in: -Infinity, out: -Infinity };
  private launched = 0;
  /** Times ECS was asked for fewer tasks than were serving meetings (it would keep them: scale-in protection). */
  busyBelowDesired = 0;
  /** Every scaling action, for the test's report. */
  actions: { t: number; rule: 'in' | 'out'; value: number; adjustment: number; desired: number }[] = [];

  constructor(private readonly o: WorldOptions) {
    this.desired = o.scaling.min;
    for (let i = 0; i < this.desired; i++) this.launch(0);
    for (const task of this.tasks) task.state = 'idle';
    // A steady pool before the run: every earlier minute counted its idle bots.
    for (let m = -60; m < 0; m++) this.idlePerMinute.set(m, this.desired);
  }

  count(state: Task['state']): number {
    return this.tasks.filter((x) => x.state === state).length;
  }

  /** Claims `n` idle bots for sessions ending at `endsAt(i)` (protected from scale-in, as bot-task/ecs-task.ts does). */
  claim(n: number, endsAt: (i: number) => number): number {
    const idle = this.tasks.filter((x) => x.state === 'idle').slice(0, n);
    idle.forEach((task, i) => {
      task.state = 'busy';
      task.endsAt = endsAt(i);
    });
    return idle.length;
  }

  /** The ECS API the pool scaler calls (core/adapters/ecs/ecs-pool-scaler.ts): DescribeServices, UpdateService. */
  ecsClient(): ECSClient {
    return {
      send: async (command: unknown) => {
        if (command instanceof DescribeServicesCommand) return { services: [{ desiredCount: this.desired }] };
        if (command instanceof UpdateServiceCommand) {
          this.desired = command.input.desiredCount ?? this.desired;
          return {};
        }
        throw new Error(`unexpected ECS call ${String(command)}`);
      },
    } as unknown as ECSClient;
  }

  tick(): void {
    this.t++;
    const t = this.t;
    // A pooled bot serves one session, then exits (bot-task/pool.ts).
    for (let i = this.tasks.length - 1; i >= 0; i--)
      if (this.tasks[i]!.state === 'busy' && this.tasks[i]!.endsAt! <= t) this.tasks.splice(i, 1);
    for (const task of this.tasks) if (task.state === 'starting' && task.readyAt <= t) task.state = 'idle';
    for (const task of this.tasks)
      if (task.state === 'idle' && t % 60 === task.phase) this.add(Math.floor(t / 60));
    for (let i = this.stopping.length - 1; i >= 0; i--) {
      const { task, at } = this.stopping[i]!;
      if (at > t) continue;
      this.stopping.splice(i, 1);
      const k = this.tasks.indexOf(task);
      if (k >= 0 && task.state !== 'busy') this.tasks.splice(k, 1);
    }
    this.reconcile();
    if (t % 60 === 0) {
      this.evaluate('out');
      this.evaluate('in');
    }
  }

  private add(minute: number) {
    this.idlePerMinute.set(minute, (this.idlePerMinute.get(minute) ?? 0) + 1);
  }

  /** Start times and metric phases spread evenly (co-prime strides), so a run is the same every time. */
  private launch(t: number) {
    const [lo, hi] = this.o.startS ?? [30, 120];
    const n = this.launched++;
    this.tasks.push({
      state: 'starting',
      readyAt: t + lo + ((n * 37) % (hi - lo + 1)),
      phase: (n * 23) % 60,
    });
  }

  /** ECS: start tasks up to the desired count; above it, stop unprotected tasks (starting ones first), never busy ones. */
  private reconcile() {
    const leaving = new Set(this.stopping.map((s) => s.task));
    const live = this.tasks.filter((x) => !leaving.has(x));
    if (live.length < this.desired) for (let i = live.length; i < this.desired; i++) this.launch(this.t);
    let surplus = live.length - this.desired;
    if (surplus <= 0) return;
    if (this.count('busy') > this.desired) this.busyBelowDesired++;
    for (const state of ['starting', 'idle'] as const)
      for (const task of live)
        if (surplus > 0 && task.state === state) {
          this.stopping.push({ task, at: this.t + (this.o.stopDelayS ?? 5) });
          surplus--;
        }
  }

  /**
   * CloudWatch evaluates the alarm every minute on the datapoints that have arrived (FILL: a silent minute is 0); an
   * alarm with an Auto Scaling action invokes it every minute it stays in ALARM ("Except for Auto Scaling actions, the
   * actions happen only on state transitions": CloudWatch, Alarm actions). Application Auto Scaling ignores an
   * invocation within the policy's cooldown, aggregates the window's datapoints and applies the step they fall in.
   */
  private evaluate(which: 'in' | 'out') {
    const rule = this.o.scaling[which];
    const lastMinute = Math.floor((this.t - (this.o.metricLagS ?? 0)) / 60) - 1;
    const window: number[] = [];
    for (let m = lastMinute - rule.periods + 1; m <= lastMinute; m++)
      window.push(this.idlePerMinute.get(m) ?? 0);
    const breaching = window.filter((v) => (rule.above ? v >= rule.threshold : v <= rule.threshold)).length;
    if (breaching < rule.datapoints) return;
    if (this.t - this.lastAction[which] < rule.cooldownS) return;
    const value =
      rule.aggregation === 'Minimum'
        ? Math.min(...window)
        : rule.aggregation === 'Maximum'
          ? Math.max(...window)
          : window.reduce((a, b) => a + b, 0) / window.length;
    const diff = value - rule.threshold;
    const step = rule.steps.find((s) => (s.lower ?? -Infinity) <= diff && diff < (s.upper ?? Infinity));
    if (!step) return;
    const desired = Math.max(
      this.o.scaling.min,
      Math.min(this.o.scaling.max, this.desired + step.adjustment),
    );
    this.lastAction[which] = this.t;
    // A scale-out ends a scale-in's cooldown (Application Auto Scaling, "Cooldown period").
    if (which === 'out') this.lastAction.in = -Infinity;
    this.actions.push({ t: this.t, rule: which, value, adjustment: step.adjustment, desired });
    this.desired = desired;
  }
}

// A function's or the bot container's environment as core/config.ts reads it: a name of one of its JSON variables
// (a queue's URL: QUEUE_URLS; the ECS runtime: BOT_RUNTIME) goes into that variable, rendered once every construct
// has added its own.
import { Lazy, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { type Group, groupNames } from '../../core/config';

interface EnvironmentTarget extends IConstruct {
  addEnvironment(name: string, value: string): unknown;
}

const groupsOf = new WeakMap<EnvironmentTarget, Partial<Record<Group, Record<string, string>>>>();

export function addEnvironment(target: EnvironmentTarget, env: Record<string, string>): void {
  const groups = groupsOf.get(target) ?? {};
  groupsOf.set(target, groups);
  for (const [name, value] of Object.entries(env)) {
    const group = (Object.keys(groupNames) as Group[]).find((g) => groupNames[g].has(name));
    if (!group) {
      target.addEnvironment(name, value);
      continue;
    }
    let values = groups[group];
    if (!values) {
      const set: Record<string, string> = {};
      values = groups[group] = set;
      target.addEnvironment(group, Lazy.string({ produce: () => Stack.of(target).toJsonString(set) }));
    }
    values[name] = value;
  }
}

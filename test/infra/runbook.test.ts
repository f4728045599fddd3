// The runbook (docs/operations.md) agrees with the stack: every alarm the synthesized template has is in exactly one
// section, no section names an alarm that does not exist, every dashboard widget it names is on the dashboard, and
// docs/deploy.md links it.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardWidgets } from '../../infra/constructs/dashboard';
import { alarmName } from '../../infra/constructs/operations';
import { repoRoot } from '../../infra/constructs/service-function';
import { resourcesOfType, type Synthesized, synthStack } from './synth-stack';

const runbook = readFileSync(join(repoRoot, 'docs/operations.md'), 'utf8');

/** The runbook's alarm sections: `## Title` followed by an `Alarms: \`Id\`, …` paragraph. */
function sections(): { title: string; alarms: string[] }[] {
  return runbook
    .split(/^## /m)
    .slice(1)
    .flatMap((body) => {
      const title = body.split('\n', 1)[0]!.trim();
      const list = /^Alarms: ([\s\S]*?)\n\n/m.exec(body)?.[1];
      return list ? [{ title, alarms: [...list.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) }] : [];
    });
}

let s: Synthesized;
let alarmIds: string[];

beforeAll(() => {
  s = synthStack({}, { bundle: false });
  const prefix = alarmName('dev', '');
  // The alarms that tell people (to the alarm topic); the warm pool's scaling alarms only run its scaling policies.
  const topic = s.stack.getLogicalId(s.stack.operations.alarmTopic.node.defaultChild as never);
  const paging = resourcesOfType(s.json, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
    JSON.stringify(a.Properties!.AlarmActions).includes(`"${topic}"`),
  );
  expect(paging.length).toBe(resourcesOfType(s.json, 'AWS::CloudWatch::Alarm').length - 2);
  alarmIds = paging.map(([, a]) => {
    const name = a.Properties!.AlarmName as string;
    expect(name.startsWith(prefix)).toBe(true);
    return name.slice(prefix.length);
  });
});
afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

describe('the runbook (docs/operations.md)', () => {
  it('has a section for every alarm of the stack, and names no alarm the stack does not have', () => {
    const named = sections().flatMap((sec) => sec.alarms);
    expect(alarmIds.length).toBeGreaterThan(10);
    expect([...named].sort()).toEqual([...alarmIds].sort());
    // Each alarm in exactly one section.
    expect(new Set(named).size).toBe(named.length);
  });

  it('says for each alarm what it means, how to look and what to do, with an admin CLI command', () => {
    for (const sec of sections()) {
      const body = runbook.split(`## ${sec.title}\n`)[1]!.split(/^## /m)[0]!;
      expect(body, sec.title).toContain('**What it means.**');
      expect(body, sec.title).toContain('**How to look.**');
      expect(body, sec.title).toContain('**What to do.**');
      expect(body, sec.title).toMatch(/npm run admin -- [a-z]+ [a-z-]+/);
      expect(body, sec.title).toMatch(/Dashboard: "/);
    }
  });

  it('names only widgets the dashboard has', () => {
    const named = [...runbook.matchAll(/Dashboard: ((?:"[^"]+",?\s*)+)/g)].flatMap((m) =>
      [...m[1]!.matchAll(/"([^"]+)"/g)].map((q) => q[1]!),
    );
    expect(named.length).toBeGreaterThan(0);
    const titles: string[] = Object.values(dashboardWidgets);
    expect(named.filter((n) => !titles.includes(n))).toEqual([]);
  });

  it('is linked from docs/deploy.md', () => {
    expect(readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8')).toContain('(operations.md)');
  });
});

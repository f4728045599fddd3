// The README's webhook receiver, run as the README gives it (only its port changed to a free one): a forged request
// is answered 400 and the receiver lives on; a request signed as the service signs (Standard Webhooks) is answered
// 200 and printed.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { until } from '../support/until';

const repoRoot = join(import.meta.dirname, '../..');
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
/** The script of the README's `node --input-type=module -e "…"` receiver. */
const script = /node --input-type=module -e "([\s\S]*?)"\n```/.exec(readme)?.[1];
const secret = `whsec_${randomBytes(24).toString('base64')}`;
let child: ChildProcess | undefined;

afterAll(() => {
  child?.kill();
});

describe("the README's webhook receiver", () => {
  it('answers 400 to a forged request and goes on; prints a signed one', async () => {
    expect(script, 'the README has the receiver').toBeDefined();
    expect(script).toContain('.listen(4000)');
    const port = await freePort();
    const out: string[] = [];
    child = spawn(
      process.execPath,
      ['--input-type=module', '-e', script!.replace('.listen(4000)', `.listen(${port})`)],
      {
        cwd: repoRoot,
        env: { ...process.env, WHSEC: secret },
      },
    );
    child.stdout!.on('data', (d: Buffer) => out.push(d.toString()));
    child.stderr!.on('data', (d: Buffer) => out.push(d.toString()));
    const post = (body: string, headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers }).then((r) => r.status);
    const body = JSON.stringify({ event: 'bot.in_call', data: { n: 1 } });

    const forged = await until(() =>
      post(body, { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' }).catch(
        () => undefined,
      ),
    );
    expect(forged).toBe(400);
    const id = 'msg_2';
    const at = new Date();
    const signature = new Webhook(secret).sign(id, at, body);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(await post(body, headers)).toBe(200);
    await until(() => out.join('').includes('bot.in_call {"n":1}'), 5_000);
    expect(out.join('')).toContain('refused:');
    expect(child.exitCode).toBeNull();
  });
});

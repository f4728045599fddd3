// The typed client as docs/client.md tells a user to take it: its files copied into a project made by `tsc --init`
// (module nodenext, exactOptionalPropertyTypes, no Node types), with its two dependencies. It must compile there as it
// is, with this repository's TypeScript and with the client's own (5.x), and the emitted JavaScript must run in Node.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const project = mkdtempSync(join(tmpdir(), 'mbs-client-init-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** The compilers: the repository's (TypeScript 7) and the one client/ installs for its generator (TypeScript 5). */
const compilers = {
  repository: join(repoRoot, 'node_modules/typescript/bin/tsc'),
  client: join(repoRoot, 'client/node_modules/typescript/bin/tsc'),
};

// A user's own code, as docs/client.md's first example writes it.
const userCode = `import {
  createMeetingBotClient,
  MeetingBotApiError,
  verifyWebhook,
  WebhookVerificationError,
  type DataDeletion,
  type RecordingView,
} from './client/index.js';

const client = createMeetingBotClient({ baseUrl: 'http://localhost:3000', apiKey: 'mbk_example' });
export async function tidy(botId: string): Promise<[RecordingView, DataDeletion]> {
  const recording = await client.recording(botId);
  return [recording, await client.deleteData(botId)];
}
try {
  verifyWebhook('whsec_${Buffer.from('x'.repeat(24)).toString('base64')}', '{}', {});
} catch (err) {
  console.log(err instanceof WebhookVerificationError ? 'refused' : 'other', typeof client.start, MeetingBotApiError.name);
}
`;

function newProject(dir: string, tsc: string): void {
  mkdirSync(join(dir, 'client'), { recursive: true });
  for (const file of ['index.ts', 'webhooks.ts', 'api-types.ts', 'package.json']) {
    copyFileSync(join(repoRoot, 'client', file), join(dir, 'client', file));
  }
  mkdirSync(join(dir, 'node_modules'));
  for (const dep of ['openapi-fetch', 'standardwebhooks']) {
    symlinkSync(join(repoRoot, 'node_modules', dep), join(dir, 'node_modules', dep));
  }
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'user-app', private: true, type: 'module' }),
  );
  writeFileSync(join(dir, 'main.ts'), userCode);
  execFileSync(process.execPath, [tsc, '--init'], { cwd: dir });
}

describe('the client in a project made by tsc --init', { timeout: 120_000 }, () => {
  for (const [name, tsc] of Object.entries(compilers)) {
    it(`compiles with the ${name}'s TypeScript, and its output runs in Node`, () => {
      const dir = join(project, name);
      newProject(dir, tsc);
      const compiled = (() => {
        try {
          execFileSync(process.execPath, [tsc, '-p', '.'], { cwd: dir, encoding: 'utf8' });
          return '';
        } catch (err) {
          return (err as { stdout?: string }).stdout || String(err);
        }
      })();
      expect(compiled).toBe('');
      const ran = execFileSync(process.execPath, ['main.js'], { cwd: dir, encoding: 'utf8' });
      expect(ran.trim()).toBe('refused function MeetingBotApiError');
    });
  }
});

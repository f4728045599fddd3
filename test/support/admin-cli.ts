// Test helper: the admin CLI in its own process, as an operator's shell runs it, with the environment a test gives.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runAdminCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return run(process.execPath, ['--import', 'tsx', 'admin/cli.ts', ...args], env);
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The CLI on its own DATA_DIR database (no endpoint of a running stack inherited from the test's environment). */
export function runAdminCliOn(dataDir: string, args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DYNAMODB_ENDPOINT;
  return runAdminCli(args, env);
}

/**
 * `npm [npmArgs] run admin -- …` in the repository, as a user types it (e.g. npmArgs `-s`): npm's own settings come
 * from `npmArgs` and `npmConfig`, none from the npm that may be running this test.
 */
export function runNpmAdmin(
  dataDir: string,
  args: string[],
  { npmArgs = [], npmConfig = {} }: { npmArgs?: string[]; npmConfig?: Record<string, string> } = {},
): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'DYNAMODB_ENDPOINT'),
  );
  return run('npm', [...npmArgs, 'run', 'admin', '--', ...args], { ...env, ...npmConfig, DATA_DIR: dataDir });
}

// Name of the file a running local stack leaves in DATA_DIR ({pid, base_url, endpoints, recordings_dir}) for the admin CLI.
export const stackFileName = 'stack.json';

/** Whether process `pid` runs: a stack (or bundle) a killed process left behind names one that does not (ESRCH). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

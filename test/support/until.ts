// Waiting in tests, by what is waited for: until() for something to happen; quietFor() for a stretch in which
// something must not happen (the checks after it say what); elapse() where the time itself is the scenario (a
// person's pause, a timeout to outlast). A test never sleeps a fixed time hoping something has happened by then.

/** Polls until a probe gives a truthy value and returns it; fails the test after `ms`. */
export async function until<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Lets `ms` of real time pass because the time is what is tested: a person's pause, a timeout to outlast. */
export const elapse = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `ms` in which the test expects nothing more to happen (a second delivery, a stray event); it checks after. */
export const quietFor = (ms: number) => elapse(ms);

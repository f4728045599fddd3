// Polls until a probe gives a truthy value and returns it; fails the test after `ms`.
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

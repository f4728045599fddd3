// The settings of an engine's config object with the undefined ones removed, so the defaults spread before them apply.

export function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

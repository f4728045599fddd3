// Example values for the OpenAPI document's strings whose pattern would otherwise make a reference page invent one:
// Swagger UI (the local stack's /docs) fills a string with a pattern from that regular expression, so zod's
// date-time pattern gave dates like 2945-02-24. One meeting's plausible timeline instead, by field name.

/** A bot started at 10:00 UTC, in the room within seconds, done at 10:45; its content deleted 30 days on. */
const dateTimes: Record<string, string> = {
  created_at: '2026-05-04T09:59:58Z',
  join_at: '2026-05-04T10:00:00Z',
  started_at: '2026-05-04T10:00:03Z',
  at: '2026-05-04T10:00:03Z',
  asked_at: '2026-05-04T10:02:10Z',
  lost_at: '2026-05-04T10:20:41Z',
  timestamp: '2026-05-04T10:45:12Z',
  completed_at: '2026-05-04T10:45:12Z',
  delivered_at: '2026-05-04T10:45:13Z',
  next_attempt_at: '2026-05-04T10:47:13Z',
  expires_at: '2026-05-04T11:50:00Z',
  data_deleted_at: '2026-06-03T10:45:12Z',
};
const defaultDateTime = '2026-05-04T10:00:03Z';

/** Other formats zod writes with a pattern. */
const byFormat: Record<string, string> = { email: 'team@example.com' };

/**
 * The schema with `examples` on every date-time (and e-mail) string that has none, found under any property, array
 * or union; the rest of the schema as it is.
 */
export function withExamples<T>(schema: T, property?: string): T {
  if (Array.isArray(schema)) return schema.map((s) => withExamples(s, property)) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, withExamples(s, name)]));
    } else {
      // items, anyOf, oneOf, allOf, … keep describing the same property.
      out[key] = withExamples(value, property);
    }
  }
  if (node.type === 'string' && node.examples === undefined && node.example === undefined) {
    const example =
      node.format === 'date-time'
        ? (dateTimes[property ?? ''] ?? defaultDateTime)
        : byFormat[String(node.format)];
    if (example !== undefined) out.examples = [example];
  }
  return out as T;
}

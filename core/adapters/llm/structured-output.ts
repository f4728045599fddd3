// Structured answers of language models: the JSON found in a model's text (for servers that ignore a requested
// response format), and the JSON Schema of a zod schema in the form a model server's constrained decoding accepts.
// (The answer is checked against the zod schema by the analysis that asked: ./insights-analysis.ts.)
import { z } from 'zod';

/** A model's answer read as data: the value that passed the schema, or why it did not. */
export type StructuredAnswer<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * The JSON value in a model's text answer: the whole text when it is an object or array, else the first ```json fenced
 * block, else the first balanced {...} that parses, else the whole text's other JSON value (a string, a number).
 * Reasoning models' <think>…</think> blocks are skipped.
 */
export function extractJson(text: string): StructuredAnswer<unknown> {
  const answer = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  if (!answer) return { ok: false, problem: 'the answer is empty' };
  const whole = parse(answer);
  // A whole answer that is an object or array is the answer; one that is a string or number may be an object the
  // model quoted (`"{...}"`), so the object inside is looked for first.
  if (whole.ok && typeof whole.value === 'object' && whole.value !== null) return whole;
  for (const m of answer.matchAll(/```(?:json|JSON)?\s*\n?([\s\S]*?)```/g)) {
    const fenced = parse(m[1]!.trim());
    if (fenced.ok) return fenced;
  }
  for (let from = answer.indexOf('{'); from >= 0; from = answer.indexOf('{', from + 1)) {
    const end = balancedEnd(answer, from);
    if (end < 0) continue;
    const found = parse(answer.slice(from, end + 1));
    if (found.ok) return found;
  }
  if (whole.ok) return whole;
  return {
    ok: false,
    problem: answer.includes('{') ? 'the answer is not valid JSON' : 'the answer contains no JSON object',
  };
}

/** JSON Schema of a tool's input, as Bedrock's `toolSpec.inputSchema.json` takes it (no `$schema` key). */
export function toolInputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return json;
}

/**
 * The JSON Schema of `schema` for a model server's `response_format`. `strict` (OpenAI's grammar-constrained
 * decoding) needs every object closed (`additionalProperties: false`) with all its properties required, and
 * rejects some keywords (string lengths, numeric ranges), which are dropped here: the zod schema checks them
 * after the answer arrives. A schema with optional properties is sent non-strict, as a hint.
 */
export function responseJsonSchema(schema: z.ZodType): { schema: Record<string, unknown>; strict: boolean } {
  let strict = true;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (unsupportedInStrict.has(key)) continue;
      out[key] = key === 'properties' ? mapValues(value as Record<string, unknown>, visit) : visit(value);
    }
    if (out.type === 'object' && out.properties) {
      const keys = Object.keys(out.properties as object);
      const required = new Set((out.required as string[] | undefined) ?? []);
      if (keys.some((k) => !required.has(k))) strict = false;
      out.additionalProperties = false;
    }
    return out;
  };
  return { schema: visit(toolInputSchema(schema)) as Record<string, unknown>, strict };
}

const unsupportedInStrict = new Set([
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]);

function parse(text: string): StructuredAnswer<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, problem: 'the answer is not valid JSON' };
  }
}

/** Index of the brace that closes the object opening at `from` (strings and escapes respected), or -1. */
function balancedEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

function mapValues(o: Record<string, unknown>, fn: (v: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, fn(v)]));
}

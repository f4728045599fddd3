import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { strictSchemaProblems } from '../../../test/support/fake-llm-server';
import { mapTool, reduceTool, singlePassTool } from './insights-prompts';
import { extractJson, responseJsonSchema } from './structured-output';

/** Text around the JSON that a chatty model adds; never a brace, fence or tag of its own. */
const prose = fc.string({ maxLength: 40 }).filter((s) => !/[{}`<]/.test(s));
const object = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
const roundTrip = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('extractJson', () => {
  it('finds an object with prose around it, in any indentation', () => {
    fc.assert(
      fc.property(prose, object, prose, fc.constantFrom(0, 2), (before, value, after, indent) => {
        const found = extractJson(`${before}${JSON.stringify(value, null, indent)}${after}`);
        expect(found).toEqual({ ok: true, value: roundTrip(value) });
      }),
    );
  });

  it('an object the model put in quotes is still the object (found by the property above)', () => {
    expect(extractJson('"{}"')).toEqual({ ok: true, value: {} });
    expect(extractJson('"{"a": 1}"')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('"just words"')).toEqual({ ok: true, value: 'just words' });
  });

  it('finds an object in a ```json fence after a <think> block holding braces', () => {
    fc.assert(
      fc.property(prose, object, (before, value) => {
        const text = `<think>maybe {"draft": 1}?</think>${before}\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\`\n${before}`;
        expect(extractJson(text)).toEqual({ ok: true, value: roundTrip(value) });
      }),
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const found = extractJson(text);
        expect(typeof found.ok).toBe('boolean');
      }),
    );
  });

  it('names what is wrong with an answer that has no usable JSON', () => {
    expect(extractJson('')).toEqual({ ok: false, problem: 'the answer is empty' });
    expect(extractJson('I cannot do that.')).toEqual({
      ok: false,
      problem: 'the answer contains no JSON object',
    });
    expect(extractJson('Here: {"a": [1, 2')).toEqual({ ok: false, problem: 'the answer is not valid JSON' });
    expect(extractJson('skip {broken} then {"a": "}"}')).toEqual({ ok: true, value: { a: '}' } });
  });
});

describe('responseJsonSchema', () => {
  it('makes every insights tool schema acceptable to strict structured output', () => {
    for (const tool of [
      singlePassTool(true),
      singlePassTool(false),
      mapTool(true),
      mapTool(false),
      reduceTool,
    ]) {
      const { schema, strict } = responseJsonSchema(tool.schema);
      expect(strict).toBe(true);
      expect(strictSchemaProblems(schema)).toEqual([]);
      expect(schema).not.toHaveProperty('$schema');
    }
  });

  it('sends a schema with optional properties non-strict, as a hint', () => {
    const { strict, schema } = responseJsonSchema(z.object({ a: z.string(), b: z.string().optional() }));
    expect(strict).toBe(false);
    expect(schema).toMatchObject({ required: ['a'], additionalProperties: false });
  });
});

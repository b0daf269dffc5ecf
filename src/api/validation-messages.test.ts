import { Ajv } from 'ajv';
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { describe, expect, it } from 'vitest';
import { ruled, validationDetails, type SchemaError } from './validation-messages.ts';

/** The details for `value` against `schema`, compiled as the app compiles (verbose, first error). */
function detailsOf(schema: TSchema, value: unknown, context = 'body') {
  const validate = new Ajv({ strict: false, verbose: true, coerceTypes: context !== 'body' }).compile(schema);
  expect(validate(value)).toBe(false);
  return validationDetails(validate.errors as SchemaError[], context);
}

describe('validationDetails', () => {
  it('says a union of constants once, with every allowed value, null included', () => {
    const status = Type.Union([Type.Union(['new', 'fixed'].map((s) => Type.Literal(s))), Type.Null()]);
    expect(detailsOf(Type.Object({ status }), { status: 'investigating' })).toEqual({
      status: ['status must be one of: new, fixed (or null)'],
    });
    expect(detailsOf(Type.Object({ role: Type.Union([Type.Literal('owner')]) }), { role: 'x' })).toEqual({
      role: ['role must be owner'],
    });
  });

  it('states the rule stated beside a pattern, never the regular expression', () => {
    const name = Type.String({ pattern: ruled('^[a-z]+$', 'lower-case letters only') });
    expect(detailsOf(Type.Object({ name }), { name: 'A1' })).toEqual({
      name: ['name must be lower-case letters only'],
    });
    const unruled = Type.String({ pattern: '^[0-9]+$' });
    expect(detailsOf(Type.Object({ n: unruled }), { n: 'x' })).toEqual({
      n: ['n is not in the expected form'],
    });
  });

  it('names the missing, the unknown and the mistyped field, and the bounds of a number', () => {
    const schema = Type.Object(
      { name: Type.String(), size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) },
      { additionalProperties: false },
    );
    expect(detailsOf(schema, {})).toEqual({ name: ['name is required'] });
    expect(detailsOf(schema, { name: 'x', colour: 'red' })).toEqual({
      colour: ['colour is not a known field; the known fields are name, size'],
    });
    expect(detailsOf(schema, { name: 42 })).toEqual({ name: ['name must be text'] });
    expect(detailsOf(schema, { name: 'x', size: 1000 })).toEqual({
      size: ['size must be a whole number from 1 to 100'],
    });
    expect(detailsOf(schema, 'text')).toEqual({ body: ['the request body must be an object'] });
  });

  it('keys a nested problem by its dotted path', () => {
    const schema = Type.Object({
      rules: Type.Array(Type.Object({ type: Type.Union([Type.Literal('a'), Type.Literal('b')]) })),
    });
    expect(detailsOf(schema, { rules: [{ type: 'a' }, { type: 'c' }] })).toEqual({
      'rules.1.type': ['rules.1.type must be one of: a, b'],
    });
  });
});

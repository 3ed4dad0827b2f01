import { readFileSync } from 'node:fs';
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isUnionType,
  printSchema,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/gateway/schema/index.js';

/** Every place of the schema a person reads in GraphiQL, without its description. */
function undocumented(): string[] {
  const missing: string[] = [];
  const need = (where: string, description: string | null | undefined) => {
    if (!description || description.trim().length < 3) missing.push(where);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isScalarType(type) && ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
    need(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        need(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) need(`${type.name}.${field.name}(${arg.name})`, arg.description);
      }
    }
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) need(`${type.name}.${field.name}`, field.description);
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) need(`${type.name}.${value.name}`, value.description);
    }
    if (isUnionType(type)) need(type.name, type.description);
  }
  return missing;
}

describe('schema', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    expect(undocumented()).toEqual([]);
  });

  it('is what schema.graphql says', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(`${printSchema(schema)}\n`);
  });

  it('speaks GraphQL conventions: enum values in SCREAMING_CASE, mutations verbNoun with Input and Payload', () => {
    const offenders: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || !isEnumType(type)) continue;
      for (const value of type.getValues())
        if (!/^[A-Z][A-Z0-9_]*$/.test(value.name)) offenders.push(`${type.name}.${value.name}`);
    }
    for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
      const name = field.name[0]!.toUpperCase() + field.name.slice(1);
      if (!/^[a-z]+[A-Z]/.test(field.name)) offenders.push(field.name);
      if (String(field.type) !== `${name}Payload!`) offenders.push(`${field.name} returns ${String(field.type)}`);
      const input = field.args.find((arg) => arg.name === 'input');
      if (!input || String(input.type) !== `${name}Input!` || field.args.length !== 1)
        offenders.push(`${field.name} input`);
    }
    expect(offenders).toEqual([]);
  });

  it('gives every delete payload `deletedId` beside `deleted`, as the conventions say', () => {
    const deletes = Object.values(schema.getTypeMap()).filter(
      (type) => isObjectType(type) && type.name.endsWith('Payload') && 'deleted' in type.getFields(),
    );
    const without = deletes.filter((type) => isObjectType(type) && !('deletedId' in type.getFields()));
    expect(without.map((type) => type.name)).toEqual([]);
    expect(deletes.length).toBeGreaterThanOrEqual(18);
  });
});

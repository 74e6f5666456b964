// A small checker for the tools' own JSON Schemas (objects of strings,
// numbers, integers and booleans, with enums, bounds, required keys and no
// unknown keys). It refuses like the engine does (SPEC §11): a CredenceError
// INVALID_INPUT naming the argument at fault, so a model can correct itself.
import { CredenceError } from 'credence';

const TYPES = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
};

function refuse(field, message) {
  return new CredenceError(`arguments.${field}: ${message}`, { code: 'INVALID_INPUT', field });
}

/** The first problem with `args` against `schema`, or null. */
export function checkArguments(schema, args) {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    return new CredenceError('arguments: must be an object', { code: 'INVALID_INPUT', field: 'arguments' });
  }
  const properties = schema.properties ?? {};
  const unknown = Object.keys(args).filter((k) => !Object.hasOwn(properties, k));
  if (unknown.length) {
    const names = unknown.map((k) => JSON.stringify(k)).join(', ');
    return refuse(unknown[0], `unknown key${unknown.length > 1 ? 's' : ''} ${names}; the arguments are ${Object.keys(properties).join(', ')}`);
  }
  for (const name of schema.required ?? []) {
    if (args[name] === undefined) return refuse(name, 'is required');
  }
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const p = properties[name];
    if (p.type && !TYPES[p.type](value)) return refuse(name, `must be ${p.type === 'integer' ? 'a whole number' : `a ${p.type}`}, got ${JSON.stringify(value)}`);
    if (p.enum && !p.enum.includes(value)) return refuse(name, `must be one of ${p.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${JSON.stringify(value)}`);
    if (p.minimum !== undefined && value < p.minimum) return refuse(name, `must be ≥ ${p.minimum}, got ${value}`);
    if (p.maximum !== undefined && value > p.maximum) return refuse(name, `must be ≤ ${p.maximum}, got ${value}`);
  }
  return null;
}

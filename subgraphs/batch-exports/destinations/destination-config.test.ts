import { describe, expect, it } from 'vitest';
import { checkConfig, splitSecrets, withDefaults, type ConfigField } from './destination-config.js';

const FIELDS: ConfigField[] = [
  { name: 'host', type: 'string', required: true, description: '' },
  { name: 'port', type: 'integer', default: 5432, description: '' },
  { name: 'tls', type: 'boolean', description: '' },
  { name: 'password', type: 'string', secret: true, required: true, description: '' },
  { name: 'mode', type: 'string', choices: [null, 'a', 'b'], description: '' },
];

describe('checkConfig', () => {
  it("takes PostHog's coercions and refuses with its words", () => {
    expect(checkConfig(FIELDS, { host: 'h', port: '6543', tls: 'true', password: 'p' }, false)).toEqual({ host: 'h', port: 6543, tls: true, password: 'p' });
    expect(() => checkConfig(FIELDS, { host: 'h', password: 'p', extra: 1, more: 2 }, false)).toThrow("Configuration has unknown field/s: 'extra', 'more'");
    expect(() => checkConfig(FIELDS, { password: 'p' }, false)).toThrow("Configuration missing required field: 'host'");
    expect(() => checkConfig(FIELDS, { host: 5, password: 'p' }, false)).toThrow("Configuration has invalid type: got 'int', expected 'str'");
    expect(() => checkConfig(FIELDS, { host: 'h', password: 'p', port: 'x' }, false)).toThrow("got 'str', expected 'int'");
    expect(() => checkConfig(FIELDS, { host: 'h', password: 'p', mode: 'c' }, false)).toThrow('"c" is not a valid choice for \'mode\'');
    expect(() => checkConfig(FIELDS, [], false)).toThrow('must be an object');
  });

  it('lets a partial config (a PATCH) leave required fields out, and keeps nulls as clears', () => {
    expect(checkConfig(FIELDS, { port: 1, mode: null }, true)).toEqual({ port: 1, mode: null });
  });
});

describe('withDefaults and splitSecrets', () => {
  it('fill defaults for a run and keep secrets apart from what is shown', () => {
    expect(withDefaults(FIELDS, { host: 'h' })).toEqual({ host: 'h', port: 5432, tls: null, password: null, mode: null });
    expect(splitSecrets(FIELDS, { host: 'h', password: 'p' })).toEqual({ open: { host: 'h' }, secrets: { password: 'p' } });
  });
});

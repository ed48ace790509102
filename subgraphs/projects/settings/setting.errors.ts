import type { ZodIssue } from 'zod';
import { ValidationError } from '../../shared/errors.js';
import { pythonTypeName } from '../../shared/validation.js';

/**
 * A setting's first problem as DRF's fields word it (PostHog's serializers validate these fields):
 * the code and message of the field type, `attr` naming the element of a list (`app_urls__0`).
 * Refinements that stand for a choice field (time zones, currencies) say so with `params.choice`.
 */
export function settingError(name: string, issue: ZodIssue, input: unknown): ValidationError {
  const value = valueAt(input, issue.path);
  const [code, detail] = drfWording(issue, value);
  return new ValidationError(detail, [name, ...issue.path].join('__'), code);
}

function drfWording(issue: ZodIssue, value: unknown): [code: string, detail: string] {
  switch (issue.code) {
    case 'invalid_enum_value':
    case 'invalid_union':
    case 'invalid_literal':
      return notAChoice(value);
    case 'invalid_type':
      return typeWording(issue.expected, value);
    case 'too_big':
      return issue.type === 'number'
        ? ['max_value', `Ensure this value is less than or equal to ${issue.inclusive ? issue.maximum : Number(issue.maximum) - 1}.`]
        : ['max_length', `Ensure this field has no more than ${issue.maximum} ${issue.type === 'array' ? 'elements' : 'characters'}.`];
    case 'too_small':
      return issue.type === 'number'
        ? ['min_value', `Ensure this value is greater than or equal to ${issue.inclusive ? issue.minimum : Number(issue.minimum) + 1}.`]
        : ['min_length', `Ensure this field has at least ${issue.minimum} ${issue.type === 'array' ? 'elements' : 'characters'}.`];
    case 'invalid_string':
      return ['invalid_input', issue.validation === 'url' ? 'Enter a valid URL.' : issue.message];
    case 'custom':
      return issue.params?.choice ? notAChoice(value) : ['invalid_input', issue.message];
    default:
      return ['invalid_input', issue.message];
  }
}

function notAChoice(value: unknown): [code: string, detail: string] {
  return ['invalid_choice', `"${String(value)}" is not a valid choice.`];
}

function typeWording(expected: string, value: unknown): [code: string, detail: string] {
  if (value === null) return ['null', 'This field may not be null.'];
  if (expected === 'boolean') return ['invalid_input', 'Must be a valid boolean.'];
  if (expected === 'integer') return ['invalid_input', 'A valid integer is required.'];
  if (expected === 'number') return ['invalid_input', 'A valid number is required.'];
  if (expected === 'string') return ['invalid_input', 'Not a valid string.'];
  if (expected === 'array') return ['not_a_list', `Expected a list of items but got type "${pythonTypeName(value)}".`];
  if (expected === 'object') return ['not_a_dict', `Expected a dictionary of items but got type "${pythonTypeName(value)}".`];
  return ['invalid_input', `Expected ${expected}, received ${pythonTypeName(value)}.`];
}

function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let value = input;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string | number, unknown>)[key] : undefined;
  return value;
}

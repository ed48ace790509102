import {
  GraphQLError,
  Kind,
  parse,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { jsonProblem, MAX_JSON_DEPTH } from '../subgraphs/shared/validation.js';

export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  /** Fields selected once fragments are spread (introspection included). */
  maxFields: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 12, maxAliases: 30, maxTokens: 5000, maxFields: 2000 };

const limitError = (code: string, message: string) =>
  new GraphQLError(message, { extensions: { code, type: 'validation_error', status: 400, attr: null, http: { status: 400 } } });
const invalidInput = (message: string) => limitError('invalid_input', message);

/** A NUL character escaped in a GraphQL string (`\u0000`, `\u{0}`); a raw one is checked apart. */
const ESCAPED_NUL = /\\u(0000|\{0+\})/i;

/**
 * Refuses operations that are too deep, use too many aliases or are too long, before any
 * subgraph is called. Introspection (`__schema`, `__type`) does not count towards depth, so
 * explorers keep working.
 */
export function useQueryLimits(limits: QueryLimits = DEFAULT_LIMITS): GatewayPlugin {
  return {
    // Variables are JSON: one nested beyond reason would overflow a stack further on, and neither
    // a NUL character nor an unpaired surrogate can be stored. REST bodies arrive here as variables too.
    onParams({ params }) {
      const problem = params.variables ? jsonProblem(params.variables) : null;
      if (problem === 'too_deep') throw limitError('variables_too_deep', `Variables nest deeper than ${MAX_JSON_DEPTH} levels.`);
      if (problem === 'nul_character') throw invalidInput('Null characters are not allowed.');
      if (problem === 'unpaired_surrogate') throw invalidInput('Unpaired surrogate characters are not allowed.');
    },
    onParse({ setParseFn }) {
      setParseFn((source, options) => {
        const text = typeof source === 'string' ? source : source.body;
        if (text.includes('\u0000') || ESCAPED_NUL.test(text)) throw invalidInput('Null characters are not allowed.');
        if (nestingOf(text) > MAX_SOURCE_NESTING) {
          throw limitError('query_too_deep', `The operation nests brackets more than ${MAX_SOURCE_NESTING} levels deep.`);
        }
        try {
          return parse(source, { ...options, maxTokens: limits.maxTokens });
        } catch (error) {
          if (error instanceof GraphQLError && /tokens/.test(error.message)) {
            throw limitError('query_too_long', `The operation has more than ${limits.maxTokens} tokens.`);
          }
          throw error;
        }
      });
    },
    onValidate({ addValidationRule }) {
      addValidationRule((context: ValidationContext) => depthAndAliasRule(context, limits));
    },
  };
}

/** Brackets may nest this deep in an operation's text (selections, lists and objects alike). */
const MAX_SOURCE_NESTING = 100;

/**
 * The deepest nesting of `{`, `[` and `(` outside strings and comments. The parser recurses once
 * per level, so this is checked before parsing: a literal nested thousands of levels deep would
 * otherwise overflow the stack.
 */
function nestingOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (char === '"') {
      const block = text.startsWith('"""', i);
      const end = block ? text.indexOf('"""', i + 3) : nextQuote(text, i + 1);
      i = end < 0 ? text.length : end + (block ? 2 : 0);
    } else if (char === '{' || char === '[' || char === '(') {
      deepest = Math.max(deepest, ++depth);
    } else if (char === '}' || char === ']' || char === ')') {
      depth--;
    }
  }
  return deepest;
}

function nextQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"' || text[i] === '\n') return i;
  }
  return -1;
}

function depthAndAliasRule(context: ValidationContext, limits: QueryLimits): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measure = measurer(fragments);
  return {
    OperationDefinition(operation) {
      const { depth, aliases, fields } = measure(operation.selectionSet);
      if (depth > limits.maxDepth) {
        context.reportError(limitError('query_too_deep', `The operation is nested ${depth} levels deep; at most ${limits.maxDepth} are allowed.`));
      }
      if (aliases > limits.maxAliases) {
        context.reportError(limitError('too_many_aliases', `The operation uses ${aliases} aliases; at most ${limits.maxAliases} are allowed.`));
      }
      if (fields > limits.maxFields) {
        context.reportError(limitError('query_too_complex', `The operation selects ${fields} fields once its fragments are spread; at most ${limits.maxFields} are allowed.`));
      }
    },
  };
}

interface Cost {
  /** Nesting of fields, introspection not counted. */
  depth: number;
  aliases: number;
  /** Fields selected once every fragment is spread where it is used. */
  fields: number;
}

const NOTHING: Cost = { depth: 0, aliases: 0, fields: 0 };

/**
 * Measures selection sets, each fragment once: spreading a fragment costs what its body costs, so
 * fragments that spread each other twice over (a "fragment bomb") add up to a huge field count
 * here, in time linear in the document, before validation or planning can spend seconds on it.
 */
function measurer(fragments: Map<string, FragmentDefinitionNode>): (selectionSet: SelectionSetNode) => Cost {
  const costs = new Map<string, Cost>();
  const visiting = new Set<string>();
  const fragmentCost = (name: string): Cost => {
    const known = costs.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // A cycle is reported by graphql-js's own rules; do not follow it here.
    if (!fragment || visiting.has(name)) return NOTHING;
    visiting.add(name);
    const cost = measure(fragment.selectionSet);
    visiting.delete(name);
    costs.set(name, cost);
    return cost;
  };
  const measure = (selectionSet: SelectionSetNode): Cost => {
    const total = { depth: 0, aliases: 0, fields: 0 };
    for (const selection of selectionSet.selections) {
      let cost: Cost;
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? measure(selection.selectionSet) : NOTHING;
        const introspection = selection.name.value.startsWith('__');
        cost = {
          depth: introspection ? 0 : 1 + below.depth,
          aliases: below.aliases + (selection.alias ? 1 : 0),
          fields: below.fields + 1,
        };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        cost = measure(selection.selectionSet);
      } else {
        cost = fragmentCost(selection.name.value);
      }
      total.depth = Math.max(total.depth, cost.depth);
      total.aliases += cost.aliases;
      total.fields += cost.fields;
    }
    return total;
  };
  return measure;
}

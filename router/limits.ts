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

export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
}

export const DEFAULT_LIMITS: QueryLimits = { maxDepth: 12, maxAliases: 30, maxTokens: 5000 };

const limitError = (code: string, message: string) =>
  new GraphQLError(message, { extensions: { code, type: 'validation_error', status: 400, attr: null, http: { status: 400 } } });

/**
 * Refuses operations that are too deep, use too many aliases or are too long, before any
 * subgraph is called. Introspection (`__schema`, `__type`) does not count towards depth, so
 * explorers keep working.
 */
export function useQueryLimits(limits: QueryLimits = DEFAULT_LIMITS): GatewayPlugin {
  return {
    onParse({ setParseFn }) {
      setParseFn((source, options) => {
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

function depthAndAliasRule(context: ValidationContext, limits: QueryLimits): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return {
    OperationDefinition(operation) {
      const aliases = { count: 0 };
      const depth = measure(operation.selectionSet, fragments, aliases, new Set());
      if (depth > limits.maxDepth) {
        context.reportError(limitError('query_too_deep', `The operation is nested ${depth} levels deep; at most ${limits.maxDepth} are allowed.`));
      }
      if (aliases.count > limits.maxAliases) {
        context.reportError(limitError('too_many_aliases', `The operation uses ${aliases.count} aliases; at most ${limits.maxAliases} are allowed.`));
      }
    },
  };
}

function measure(
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  aliases: { count: number },
  visiting: Set<string>,
): number {
  let deepest = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.alias) aliases.count++;
      if (selection.name.value.startsWith('__')) continue;
      const below = selection.selectionSet ? measure(selection.selectionSet, fragments, aliases, visiting) : 0;
      deepest = Math.max(deepest, 1 + below);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, measure(selection.selectionSet, fragments, aliases, visiting));
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      // A fragment cycle is reported by graphql-js's own rules; do not follow it here.
      if (!fragment || visiting.has(name)) continue;
      visiting.add(name);
      deepest = Math.max(deepest, measure(fragment.selectionSet, fragments, aliases, visiting));
      visiting.delete(name);
    }
  }
  return deepest;
}

import { getLocation, Kind, parse, Source, visit, type ASTNode, type DocumentNode, type GraphQLFormattedError } from 'graphql';

/**
 * The argument a refused value was given for, as the REST layer names the field (its `attr`):
 * graphql-js names a variable by the client's own name for it (`$h` for `historical_migration`),
 * and a literal it refuses not at all. Read off the operation's text, where the error points: the
 * innermost argument or input field holding the literal there, or a variable's first use. Null
 * for an error about neither, or without its operation's text.
 */
export function argumentOf(error: GraphQLFormattedError, query: string | undefined): string | null {
  const at = error.locations?.[0];
  if (query === undefined || !at) return null;
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return null;
  }
  const variable = /^Variable "\$(\w+)"/.exec(error.message)?.[1];
  if (variable !== undefined) return holderOf(document, (node) => node.kind === Kind.VARIABLE && node.name.value === variable);
  const source = new Source(query);
  return holderOf(document, (node) => {
    const start = node.loc && getLocation(source, node.loc.start);
    return start !== undefined && start.line === at.line && start.column === at.column;
  });
}

/** The name of the innermost argument or input field whose value holds the first node that `matches`. */
function holderOf(document: DocumentNode, matches: (node: ASTNode) => boolean): string | null {
  const holders: string[] = [];
  let found: string | null = null;
  const hold = { enter: (named: { name: { value: string } }) => void holders.push(named.name.value), leave: () => void holders.pop() };
  visit(document, {
    Argument: hold,
    ObjectField: hold,
    enter(node) {
      if (found === null && holders.length > 0 && matches(node)) found = holders.at(-1)!;
    },
  });
  return found;
}

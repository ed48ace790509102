/** A node of `EXPLAIN (FORMAT JSON)`'s plan, as far as a check of it reads. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/**
 * What in a plan reads more than a page of the tables `relation` names (a partitioned table's
 * partitions too): each scan of a whole one (`Seq Scan`, parallel or not), and each sort of rows
 * read from one (`Sort`, `Incremental Sort`: an order the index did not give). Empty for a plan
 * that walks an index in the order asked.
 */
export function planProblems(plan: unknown, relation: RegExp): string[] {
  const problems: string[] = [];
  const visit = (node: PlanNode): string[] => {
    const below = (node.Plans ?? []).flatMap(visit);
    const read = node['Relation Name'] && relation.test(node['Relation Name']) ? [node['Relation Name']] : [];
    if (node['Node Type'] === 'Seq Scan' && read.length > 0) problems.push(`Seq Scan on ${read[0]}`);
    const tables = [...read, ...below];
    if (/Sort$/.test(node['Node Type']) && tables.length > 0) problems.push(`${node['Node Type']} over ${[...new Set(tables)].join(', ')}`);
    return tables;
  };
  visit(plan as PlanNode);
  return problems;
}

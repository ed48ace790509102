import type { EntityManager } from '@mikro-orm/postgresql';
import { endpointsFacade, type PropertyReads } from '../../../../subgraphs/endpoints/facade.js';
import { ingestionFacade } from '../../../../subgraphs/ingestion/facade.js';
import type { ClickHouse } from '../../../../subgraphs/shared/clickhouse/clickhouse.js';
import type { Logger } from '../../../../subgraphs/shared/logger.js';
import type { MaterializeRequest } from './events-materialize.options.js';
import { FillBar } from './events-materialize.progress.js';

const { materializedColumns } = ingestionFacade;

/** `--suggest`: what the saved endpoints read, most-read first, with the column each property has. */
export async function suggest(clickhouse: ClickHouse, endpoints: EntityManager, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const reads = await endpointsFacade.eventPropertyReads(endpoints);
  if (reads.length === 0) {
    out.write('No active saved endpoint reads a top-level event property.\n');
    return;
  }
  const columns = new Map((await materializedColumns.read(clickhouse)).map((column) => [column.property, column]));
  const state = (property: string) => {
    const column = columns.get(property);
    return column ? (column.ready ? column.column : `${column.column} (still filling)`) : '-';
  };
  const width = Math.max('property'.length, ...reads.map((read) => read.property.length));
  out.write(`${'endpoints'.padStart(9)}  ${'environments'.padStart(12)}  ${'property'.padEnd(width)}  column\n`);
  for (const read of reads) out.write(`${String(read.endpoints).padStart(9)}  ${String(read.environments).padStart(12)}  ${read.property.padEnd(width)}  ${state(read.property)}\n`);
}

/** The properties a request names: those given, then the `top` most-read ones not given already. */
export async function propertiesOf(request: Extract<MaterializeRequest, { kind: 'materialize' }>, endpoints: EntityManager): Promise<string[]> {
  if (request.top === 0) return request.properties;
  const reads: PropertyReads[] = await endpointsFacade.eventPropertyReads(endpoints);
  const top = reads
    .map((read) => read.property)
    .filter((property) => materializedColumns.isMaterializable(property))
    .slice(0, request.top);
  return [...new Set([...request.properties, ...top])];
}

/** Materializes each property in turn, a line for each on `out`, the fill's progress on stderr. */
export async function materializeAll(clickhouse: ClickHouse, properties: string[], log: Logger, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  if (properties.length === 0) out.write('No active saved endpoint reads a top-level event property: nothing to materialize.\n');
  for (const property of properties) {
    const bar = new FillBar();
    const outcome = await materializedColumns.materialize(clickhouse, property, (progress) => bar.update(progress)).finally(() => bar.finish());
    log.info({ ...outcome }, outcome.state === 'already' ? 'property already materialized' : 'property materialized');
    out.write(
      outcome.state === 'already'
        ? `${property}: already materialized as ${outcome.column}\n`
        : `${property}: materialized as ${outcome.column}, filled for every event in ${outcome.seconds.toFixed(1)} s\n`,
    );
  }
}

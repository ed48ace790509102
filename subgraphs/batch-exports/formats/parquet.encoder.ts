import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { epochMicros, type ColumnType, type ExportColumn } from './export-columns.js';

type Compressor = (bytes: Uint8Array) => Uint8Array;
type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** Each column's Parquet type, every one nullable: times as microseconds in UTC, JSON as text. */
function element(column: ExportColumn): SchemaElement {
  const base = { name: column.name, repetition_type: 'OPTIONAL' as const };
  switch (column.type) {
    case 'Integer':
      return { ...base, type: 'INT64' };
    case 'Float':
      return { ...base, type: 'DOUBLE' };
    case 'Boolean':
      return { ...base, type: 'BOOLEAN' };
    case 'DateTime':
      return { ...base, type: 'INT64', converted_type: 'TIMESTAMP_MICROS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } };
    default:
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
  }
}

function columnValue(type: ColumnType): (value: unknown) => unknown {
  switch (type) {
    case 'Integer':
      return (value) => (value === null || value === undefined ? null : BigInt(Math.trunc(Number(value))));
    case 'Float':
      return (value) => (value === null || value === undefined ? null : Number(value));
    case 'Boolean':
      return (value) => (value === null || value === undefined ? null : Boolean(value));
    case 'DateTime':
      return (value) => (value === null || value === undefined ? null : epochMicros(String(value)));
    default:
      return (value) => (value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value));
  }
}

/** Hands each row group to `flush` as it is written, so that a file never sits whole in memory. */
class StreamingBytes extends ByteWriter {
  constructor(private readonly out: (chunk: Uint8Array) => Promise<void>) {
    super(1 << 20);
  }

  flush(): Promise<void> {
    const chunk = this.getBytes().slice();
    this.index = 0;
    return this.out(chunk);
  }

  override finish(): Promise<void> {
    return this.flush();
  }
}

const CODECS: Record<string, 'SNAPPY' | 'GZIP' | 'BROTLI'> = { snappy: 'SNAPPY', gzip: 'GZIP', brotli: 'BROTLI' };

/** A Parquet file written a row group per page. */
export function parquetFile(columns: ExportColumn[], compression: string | null, compressors: Record<string, Compressor>, out: (chunk: Uint8Array) => Promise<void>) {
  const writer = new ParquetWriter({
    writer: new StreamingBytes(out),
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map(element)],
    codec: compression ? CODECS[compression]! : 'UNCOMPRESSED',
    compressors,
  });
  const convert = columns.map((column) => columnValue(column.type));
  return {
    async write(rows: unknown[][]): Promise<void> {
      if (rows.length === 0) return;
      const columnData = columns.map((column, index) => ({ name: column.name, data: rows.map((row) => convert[index]!(row[index])) }));
      await writer.write({ columnData, rowGroupSize: rows.length });
    },
    async finish(): Promise<void> {
      await writer.finish();
    },
  };
}

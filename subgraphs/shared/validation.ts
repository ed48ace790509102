const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path id can be a UUID; anything else is "not found" without asking the database. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Size of a JSON value as stored, in bytes. */
export function jsonSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

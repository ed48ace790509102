/** Builders shared by the text representation tests (not used by the code itself). */
import { renderTextRepr } from './text-repr.js';

export const SEP = '-'.repeat(80);
export const RULE = '='.repeat(80);

/** The rendered text of a request. */
export function render(eventType: string, data: unknown, options?: unknown): string {
  return renderTextRepr(eventType, data, options).text;
}

/** The rendered lines of a request. */
export function renderLines(eventType: string, data: unknown, options?: unknown): string[] {
  return render(eventType, data, options).split('\n');
}

/** A generation event with the given properties. */
export function generation(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 'gen-1', event: '$ai_generation', properties, ...extra };
}

/** A span event with the given properties. */
export function span(properties: Record<string, unknown>): Record<string, unknown> {
  return { id: 'span-1', event: '$ai_span', properties };
}

/** Lines of a generation rendered from its properties alone. */
export function generationLines(properties: Record<string, unknown>, options?: unknown): string[] {
  return renderLines('$ai_generation', generation(properties), options);
}

export function decodeBase64(encoded: string): string {
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** The payload of the first `<<<TAG|...>>>` marker in the text, split on `|`. */
export function markerFields(text: string, tag: string): string[] {
  const start = text.indexOf(`<<<${tag}|`);
  if (start < 0) throw new Error(`no ${tag} marker`);
  const end = text.indexOf('>>>', start);
  return text.slice(start + tag.length + 4, end).split('|');
}

/** A trace request body. */
export function traceData(hierarchy: unknown[], properties: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { trace: { id: 'trace-1', properties: { $ai_trace_id: 'trace-1', ...properties }, ...extra }, hierarchy };
}

/** A hierarchy node. */
export function node(id: string, event: string, properties: Record<string, unknown> = {}, children: unknown[] = []): Record<string, unknown> {
  return { event: { id, event, properties }, children };
}

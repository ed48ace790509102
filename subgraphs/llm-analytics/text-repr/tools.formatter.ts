/** The AVAILABLE TOOLS block of a generation (section 3.5.6). */
import { utf8Base64 } from './code-points.js';
import { has, isObject, own, truthy, type JsonObject } from './json.guards.js';
import { pyJsonDumpsPrefix, pyStr } from './python.format.js';
import { MAX_UNKNOWN_TOOL_DESCRIPTION_LENGTH } from './text-repr.constants.js';
import type { TextReprOptions } from './text-repr.options.js';

interface ToolSpec {
  name: unknown;
  /** undefined when the tool has none (Python's "N/A" default, which is never printed). */
  description: unknown;
  schema: unknown;
}

/** Name, description and parameter schema of one tool in any of the provider shapes. */
function describeTool(tool: JsonObject): ToolSpec {
  const fn = own(tool, 'function');
  if (isObject(fn)) {
    // OpenAI: {type: "function", function: {name, description, parameters}}
    return { name: has(fn, 'name') ? fn.name : 'unknown', description: own(fn, 'description'), schema: own(fn, 'parameters') };
  }
  if (has(tool, 'name')) {
    // Anthropic {name, description, input_schema}, MCP {inputSchema}, unwrapped Google {parameters}.
    const schema = [own(tool, 'input_schema'), own(tool, 'inputSchema'), own(tool, 'parameters')].find(truthy);
    return { name: tool.name, description: own(tool, 'description'), schema };
  }
  return {
    name: has(tool, 'type') ? tool.type : 'UNKNOWN',
    description: pyJsonDumpsPrefix(tool, MAX_UNKNOWN_TOOL_DESCRIPTION_LENGTH),
    schema: undefined,
  };
}

/** Python's `name in required` for a list (membership), a string (substring) or a dict (key). */
function isRequired(required: unknown, name: string): boolean {
  if (Array.isArray(required)) return required.includes(name);
  if (typeof required === 'string') return required.includes(name);
  if (isObject(required)) return has(required, name);
  return false;
}

/** `name(p1: type, p2?: type)` from the JSON-schema properties, in their order. */
function signature(spec: ToolSpec): string {
  const params: string[] = [];
  const schema = spec.schema;
  if (isObject(schema) && isObject(own(schema, 'properties'))) {
    const properties = schema.properties as JsonObject;
    const required = has(schema, 'required') ? schema.required : [];
    for (const [param, info] of Object.entries(properties)) {
      if (!isObject(info)) continue;
      const type = pyStr(has(info, 'type') ? info.type : 'any');
      params.push(isRequired(required, param) ? `${param}: ${type}` : `${param}?: ${type}`);
    }
  }
  return `${pyStr(spec.name)}(${params.join(', ')})`;
}

/** First line of the description, cut at the first `. `, with a trailing period ensured. */
function shortDescription(description: unknown): string | null {
  if (description === undefined || !truthy(description)) return null;
  const text = pyStr(description);
  if (text === 'N/A') return null;
  const newline = text.indexOf('\n');
  const firstLine = newline < 0 ? text : text.slice(0, newline);
  const stop = firstLine.indexOf('. ');
  const sentence = stop < 0 ? firstLine : firstLine.slice(0, stop);
  return sentence.endsWith('.') ? sentence : `${sentence}.`;
}

/** The listing: for each tool an empty line, `  <signature>` and `    <description>`; joined by newlines. */
function formatToolsList(tools: readonly unknown[]): string {
  const lines: string[] = [];
  for (const entry of tools) {
    if (!isObject(entry)) continue;
    const declarations = own(entry, 'functionDeclarations');
    const group = Array.isArray(declarations) ? declarations : [entry];
    for (const tool of group) {
      if (!isObject(tool)) continue;
      const spec = describeTool(tool);
      lines.push('', `  ${signature(spec)}`);
      const description = shortDescription(spec.description);
      if (description !== null) lines.push(`    ${description}`);
    }
  }
  return lines.join('\n');
}

/**
 * The tools block lines (without the leading separator), or none. `$ai_tools` may be an array or an object map
 * (its values). The count includes entries that are not objects; a Google `functionDeclarations` wrapper counts
 * once. Above `tools_collapse_threshold` the list collapses into an expandable marker or a `[+]` line.
 */
export function formatTools(aiTools: unknown, options: TextReprOptions): string[] {
  if (!truthy(aiTools)) return [];
  let tools: unknown[];
  if (Array.isArray(aiTools)) tools = aiTools;
  else if (isObject(aiTools)) tools = Object.values(aiTools);
  else return [];
  if (tools.length === 0) return [];

  const heading = `AVAILABLE TOOLS: ${tools.length}`;
  if (tools.length > options.tools_collapse_threshold) {
    if (!options.include_markers) return ['', `[+] ${heading}`];
    return ['', `<<<TOOLS_EXPANDABLE|${heading}|${utf8Base64(`${heading}\n${formatToolsList(tools)}`)}>>>`];
  }
  return ['', heading, formatToolsList(tools)];
}

/** An interval bound as Python's `isoformat()` writes an aware UTC datetime (PostHog's key parts). */
export function isoformat(date: Date): string {
  const iso = date.toISOString();
  const fraction = iso.slice(20, 23);
  return `${iso.slice(0, 19)}${fraction === '000' ? '' : `.${fraction}000`}+00:00`;
}

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * The prefix with PostHog's template variables filled in (`{year}`, `{month}`, `{day}`, `{hour}`,
 * `{minute}`, `{second}` of the interval's end, `{data_interval_start}`, `{data_interval_end}`,
 * `{table}`), as Python's `str.format` fills them: `{{` and `}}` are braces, and a prefix naming
 * anything else is used as it is.
 */
export function renderPrefix(prefix: string, model: string, start: Date | null, end: Date): string {
  const variables: Record<string, string> = {
    year: String(end.getUTCFullYear()),
    month: pad(end.getUTCMonth() + 1),
    day: pad(end.getUTCDate()),
    hour: pad(end.getUTCHours()),
    minute: pad(end.getUTCMinutes()),
    second: pad(end.getUTCSeconds()),
    data_interval_start: start ? isoformat(start) : 'START',
    data_interval_end: isoformat(end),
    table: model,
  };
  let rendered = '';
  for (let index = 0; index < prefix.length; index++) {
    const char = prefix[index]!;
    if ((char === '{' || char === '}') && prefix[index + 1] === char) {
      rendered += char;
      index++;
    } else if (char === '{') {
      const close = prefix.indexOf('}', index);
      const name = close < 0 ? null : prefix.slice(index + 1, close);
      if (name === null || !Object.hasOwn(variables, name)) return prefix;
      rendered += variables[name];
      index = close;
    } else if (char === '}') {
      return prefix;
    } else {
      rendered += char;
    }
  }
  return rendered;
}

/** `posixpath.join(prefix, name)` without a leading slash. */
function join(prefix: string, name: string): string {
  const joined = prefix === '' || prefix.endsWith('/') ? `${prefix}${name}` : `${prefix}/${name}`;
  return joined.replace(/^\/+/, '');
}

export interface KeyParts {
  prefix: string;
  model: string;
  start: Date | null;
  end: Date;
  extension: string;
}

/** An object's key: `<prefix>/<start>-<end>[-<part>].<extension>`, the part number only when files are split by size. */
export function objectKey(parts: KeyParts, part: number | null): string {
  const name = `${parts.start ? isoformat(parts.start) : 'START'}-${isoformat(parts.end)}${part === null ? '' : `-${part}`}.${parts.extension}`;
  return join(renderPrefix(parts.prefix, parts.model, parts.start, parts.end), name);
}

/** The manifest of a run split by size: `<prefix>/<start>-<end>_manifest.json`. */
export function manifestKey(parts: KeyParts): string {
  const name = `${parts.start ? isoformat(parts.start) : 'START'}-${isoformat(parts.end)}_manifest.json`;
  return join(renderPrefix(parts.prefix, parts.model, parts.start, parts.end), name);
}

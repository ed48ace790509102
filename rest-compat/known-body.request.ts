/**
 * A request whose body this process already holds as text: `text()` answers it as it is, where a
 * Request built from it would encode megabytes (a trace for text_repr) to bytes only for SOFA to
 * decode them again. Its `body` stream is empty but present: SOFA asks `body != null`, then reads
 * `text()`. (The in-process router is handed its operation as an object: `ParsedJsonRequest`.)
 */
export class KnownBodyRequest extends Request {
  constructor(
    url: string,
    method: string,
    headers: Record<string, string>,
    private readonly bodyText: string,
  ) {
    super(url, { method, headers, body: '' });
  }

  override text(): Promise<string> {
    return Promise.resolve(this.bodyText);
  }

  override json(): Promise<unknown> {
    return Promise.resolve(JSON.parse(this.bodyText));
  }
}
